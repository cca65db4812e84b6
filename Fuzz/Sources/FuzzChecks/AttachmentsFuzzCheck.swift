@testable import UserNotifications

/// Every attachment sniffer and structure check (PNG, JPEG, GIF, MPEG-4 and its boxes, WAV, AIFF, AVI, MP3, MPEG):
/// any bytes are sniffed, and checked as each format, without a crash; a refusal is an attachment error.
package enum AttachmentsFuzzCheck {
    private static let refusals: Set<UNError.Code> = [.attachmentCorrupt, .attachmentUnrecognizedType]

    package static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        let reader = MemoryByteReader(bytes)
        var sniffed: SniffedFormat?
        if let error = refusal({ () throws(UNError) in sniffed = try AttachmentSniffer.sniff(reader) }) {
            try expectRefusal(error, "sniffing")
        }
        if let sniffed {
            for format in AttachmentFormat.allCases {
                _ = try? AttachmentValidator.resolve(sniffed, typeHint: format.typeIdentifier, fileExtension: "bin")
            }
        }
        for format in AttachmentFormat.allCases {
            var checked: AttachmentMetadata?
            if let error = refusal({ () throws(UNError) in checked = try AttachmentIntegrity.check(reader, as: format) }) {
                try expectRefusal(error, "checking as \(format)")
            }
            if let duration = checked?.duration, !(duration >= 0) { throw FuzzFinding("a \(format) lasts \(duration) s") }
            if let frames = checked?.frameCount, frames < 0 { throw FuzzFinding("a GIF has \(frames) frames") }
        }
        var boxes: [MP4Box] = []
        if let error = refusal({ () throws(UNError) in boxes = try MP4.boxes(in: reader, from: 0, to: reader.size) }) {
            try expectRefusal(error, "walking MPEG-4 boxes")
        } else {
            for box in boxes { _ = try? MP4.children(of: box, in: reader) }
            _ = try? MP4.movieHeader(in: reader)
            _ = try? MP4.handlerTypes(in: reader)
        }
    }

    private static func expectRefusal(_ error: UNError, _ what: String) throws(FuzzFinding) {
        if !refusals.contains(error.code) { throw FuzzFinding("\(what) refused with \(error.code)") }
    }
}
