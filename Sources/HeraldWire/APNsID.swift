public import Foundation

/// Parsing and printing of `apns-id` / `apns-unique-id`: a canonical 8-4-4-4-12 UUID.
public enum APNsID {
    /// The UUID in `text` when it is exactly the canonical 36-character form (either case), else nil.
    public static func parse(_ text: some StringProtocol) -> UUID? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        for (index, byte) in utf8.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return nil }
            default:
                guard byte.isHexDigit else { return nil }
            }
        }
        return UUID(uuidString: String(text))
    }

    /// A new time-ordered UUID (version 7): 48 bits of milliseconds, then random bits.
    ///
    /// Ids the gateway makes sort by creation time, so the store's indexes grow at their end
    /// instead of touching a random page per notification.
    public static func generate(at date: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let random = generator.next() as UInt64
        let moreRandom = generator.next() as UInt64
        let bytes: [UInt8] = [
            UInt8(truncatingIfNeeded: milliseconds >> 40), UInt8(truncatingIfNeeded: milliseconds >> 32),
            UInt8(truncatingIfNeeded: milliseconds >> 24), UInt8(truncatingIfNeeded: milliseconds >> 16),
            UInt8(truncatingIfNeeded: milliseconds >> 8), UInt8(truncatingIfNeeded: milliseconds),
            0x70 | UInt8(truncatingIfNeeded: random >> 60), UInt8(truncatingIfNeeded: random >> 52),
            0x80 | UInt8(truncatingIfNeeded: random >> 46) & 0x3F, UInt8(truncatingIfNeeded: random >> 38),
            UInt8(truncatingIfNeeded: moreRandom >> 40), UInt8(truncatingIfNeeded: moreRandom >> 32),
            UInt8(truncatingIfNeeded: moreRandom >> 24), UInt8(truncatingIfNeeded: moreRandom >> 16),
            UInt8(truncatingIfNeeded: moreRandom >> 8), UInt8(truncatingIfNeeded: moreRandom),
        ]
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The canonical lowercase text of a UUID, the form Herald sends in `apns-id` when it generates one.
    public static func format(_ id: UUID) -> String {
        id.uuidString.lowercased()
    }
}
