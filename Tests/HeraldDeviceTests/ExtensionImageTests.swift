import Foundation
import HeraldTesting
import HeraldWire
import Testing
import UserNotificationsUI

@testable import HeraldDevice

/// An image a content extension makes from bytes (`UIImage(data:)`) has no file: the snapshot carries its bytes and
/// the notification center page loads them from the daemon, as it loads an attachment's file.
@MainActor @Suite struct ExtensionImageTests {
    private let png = Data(AttachmentFixtures.png)

    /// The first child of a view's JSON.
    private func firstChild(_ view: JSONValue) -> JSONValue? {
        if case .array(let children)? = view["children"] { return children.first }
        return nil
    }

    private func snapshot(of image: UIImage) -> ViewSnapshot {
        let view = UIView()
        view.addSubview(UIImageView(image: image))
        return ViewSnapshot.of(view)
    }

    @Test func anImageMadeFromBytesIsServedToThePage() throws {
        let files = ServedFiles()
        let view = NotificationCenterJSON.view(snapshot(of: try #require(UIImage(data: png))), files: files)
        let image = try #require(firstChild(view))
        #expect(image["kind"] == .string("image") && image["format"] == .string("png"))
        let source = try #require(image["src"]?.stringValue)
        #expect(source.hasPrefix("files/"))
        let served = try #require(files.image(String(source.dropFirst("files/".count))))
        #expect(served.data == png && served.contentType == "image/png")
    }

    @Test func theSnapshotCarriesTheBytesAcrossTheWireUpToTheLimit() throws {
        let small = try #require(UIImage(data: png))
        let decoded = try JSONDecoder().decode(ViewSnapshot.self, from: JSONEncoder().encode(snapshot(of: small)))
        #expect(decoded.children.first?.drawing == .image(path: nil, format: "png", bytes: png.count, data: png))

        var large = png
        large.append(Data(count: ViewSnapshot.inlineImageLimit))
        let big = try #require(UIImage(data: large))
        #expect(snapshot(of: big).children.first?.drawing == .image(path: nil, format: "png", bytes: large.count, data: nil))
        // Drawn as its type and size, as before.
        #expect(firstChild(NotificationCenterJSON.view(snapshot(of: big), files: ServedFiles()))?["src"] == .null)
    }

    @Test func bytesHeldForThePageAreBounded() throws {
        let files = ServedFiles(capacity: 100, byteCapacity: 3 * (png.count + 1))
        var addresses: [String] = []
        for index in 0..<5 {
            var distinct = png
            distinct.append(UInt8(index))
            addresses.append(try #require(files.address(ofImage: distinct, format: "png")))
        }
        let kept = addresses.map { files.image(String($0.dropFirst("files/".count))) != nil }
        #expect(kept == [false, false, true, true, true])
        #expect(files.address(ofImage: Data("not an image".utf8), format: "image") == nil)
    }
}
