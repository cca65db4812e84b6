public import Foundation

/// Parsing and printing of `apns-id` / `apns-unique-id`: a canonical 8-4-4-4-12 UUID.
public enum APNsID {
    /// The UUID in `text` when it is exactly the canonical 36-character form (either case), else nil.
    public static func parse(_ text: some StringProtocol) -> UUID? {
        var string = String(text)
        return string.withUTF8 { parse(utf8: $0) }
    }

    /// The non-generic, index-based parse: it runs for every apns-id a gateway receives and every one a
    /// client reads back, so it must not go through unspecialized generic iteration.
    private static func parse(utf8 text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36 else { return nil }
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            var index = 0
            var count = 0
            while index < 36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard text[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                    continue
                }
                guard let high = text[index].hexValue, let low = text[index + 1].hexValue else { return false }
                out[count] = high << 4 | low
                count += 1
                index += 2
            }
            return count == 16
        }
        return parsed ? UUID(uuid: bytes) : nil
    }

    /// A new time-ordered UUID (version 7): 48 bits of milliseconds, then 74 random bits.
    ///
    /// Ids the gateway makes sort by creation time, so the store's indexes grow at their end
    /// instead of touching a random page per notification.
    public static func generate(at date: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let (random, moreRandom) = RandomBits.next()
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
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The canonical lowercase text of a UUID, the form Herald sends in `apns-id` when it generates one.
    public static func format(_ id: UUID) -> String {
        // A digit by arithmetic: a table of digits would be an array allocated on every call.
        func digit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value }
        return withUnsafeBytes(of: id.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digit(byte >> 4)
                    out[position + 1] = digit(byte & 0x0F)
                    position += 2
                }
                return position
            }
        }
    }
}
