import Foundation
import Testing

@testable import UserNotifications

@Suite struct ErrorTests {
    static let codes: [(UNError.Code, Int)] = [
        (.notificationsNotAllowed, 1), (.attachmentInvalidURL, 100), (.attachmentUnrecognizedType, 101),
        (.attachmentInvalidFileSize, 102), (.attachmentNotInDataStore, 103), (.attachmentMoveIntoDataStoreFailed, 104),
        (.attachmentCorrupt, 105), (.notificationInvalidNoDate, 1400), (.notificationInvalidNoContent, 1401),
        (.contentProvidingObjectNotAllowed, 1500), (.contentProvidingInvalid, 1501), (.badgeInputInvalid, 1600),
    ]

    @Test(arguments: codes)
    func codesHaveApplesRawValuesAndBridgeToNSError(code: UNError.Code, raw: Int) {
        #expect(code.rawValue == raw)
        let error = UNError(code)
        let bridged = error as NSError
        #expect(bridged.domain == "UNErrorDomain" && bridged.code == raw)
        #expect(!error.localizedDescription.isEmpty)
        #expect(UNError.errorDomain == UNErrorDomain && error.errorCode == raw)
    }

    @Test func theDomainIsApples() {
        #expect(UNErrorDomain == "UNErrorDomain")
    }

    @Test func theMessageIsTheLocalizedDescription() {
        let error = UNError(.attachmentInvalidFileSize, "the image attachment a.jpg has 10000001 bytes; at most 10000000 are allowed")
        #expect(error.localizedDescription == error.message)
        #expect((error as NSError).localizedDescription == error.message)
        #expect((error as NSError).userInfo[NSLocalizedDescriptionKey] as? String == error.message)
        #expect(error.description.contains("attachmentInvalidFileSize"))
        let custom = UNError(.badgeInputInvalid, userInfo: [NSLocalizedDescriptionKey: "no negative badges"])
        #expect(custom.localizedDescription == "no negative badges" && custom.code == .badgeInputInvalid)
    }

    @Test func theUnderlyingErrorIsBridged() {
        let cause = CocoaError(.fileReadNoPermission)
        let error = UNError(.attachmentMoveIntoDataStoreFailed, "cannot move", underlying: cause)
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.code == CocoaError.Code.fileReadNoPermission.rawValue)
    }

    @Test func catchPatternsWorkAsOnIOS() {
        func fail() throws { throw UNError(.attachmentInvalidFileSize, "too big") }
        var matched: [String] = []
        do { try fail() } catch let error as UNError where error.code == .attachmentInvalidFileSize { matched.append("where") } catch {}
        do { try fail() } catch UNError.attachmentInvalidFileSize { matched.append("code") } catch {}
        do { try fail() } catch UNError.attachmentCorrupt { matched.append("wrong") } catch { matched.append("other") }
        #expect(matched == ["where", "code", "other"])
        let erased: any Error = UNError(.notificationsNotAllowed)
        #expect((erased as NSError).code == 1 && (erased as? UNError)?.code == .notificationsNotAllowed)
    }

    @Test func equalityIsByCodeAndMessage() {
        #expect(UNError(.attachmentCorrupt, "a") == UNError(.attachmentCorrupt, "a"))
        #expect(UNError(.attachmentCorrupt, "a") != UNError(.attachmentCorrupt, "b"))
        #expect(UNError(.attachmentCorrupt, "a") != UNError(.attachmentInvalidURL, "a"))
        #expect(Set([UNError(.attachmentCorrupt, "a"), UNError(.attachmentCorrupt, "a")]).count == 1)
    }
}
