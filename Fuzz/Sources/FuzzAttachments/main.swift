import Foundation
import FuzzSupport

@testable import UserNotifications

// Every attachment sniffer and structure check (PNG, JPEG, GIF, MPEG-4 and its boxes, WAV, AIFF, AVI, MP3, MPEG):
// any bytes are sniffed, and checked as each format, without a crash; a refusal is an attachment error.

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let reader = MemoryByteReader(FuzzDriver.bytes(data, size))
    let refusals: Set<UNError.Code> = [.attachmentCorrupt, .attachmentUnrecognizedType]
    func expectRefusal(_ error: UNError, _ what: String) {
        if !refusals.contains(error.code) { FuzzDriver.fail("\(what) refused with \(error.code)") }
    }
    do throws(UNError) {
        let sniffed = try AttachmentSniffer.sniff(reader)
        for format in AttachmentFormat.allCases {
            _ = try? AttachmentValidator.resolve(sniffed, typeHint: format.typeIdentifier, fileExtension: "bin")
        }
    } catch {
        expectRefusal(error, "sniffing")
    }
    for format in AttachmentFormat.allCases {
        do throws(UNError) {
            let metadata = try AttachmentIntegrity.check(reader, as: format)
            if let duration = metadata.duration, !(duration >= 0) { FuzzDriver.fail("a \(format) lasts \(duration) s") }
            if let frames = metadata.frameCount, frames < 0 { FuzzDriver.fail("a GIF has \(frames) frames") }
        } catch {
            expectRefusal(error, "checking as \(format)")
        }
    }
    do throws(UNError) {
        let boxes = try MP4.boxes(in: reader, from: 0, to: reader.size)
        for box in boxes { _ = try? MP4.children(of: box, in: reader) }
        _ = try? MP4.movieHeader(in: reader)
        _ = try? MP4.handlerTypes(in: reader)
    } catch {
        expectRefusal(error, "walking MPEG-4 boxes")
    }
    return 0
}

exit(FuzzDriver.run(testOneInput))
