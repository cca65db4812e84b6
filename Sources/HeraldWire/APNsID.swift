public import struct Foundation.UUID

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

    /// The canonical lowercase text of a UUID, the form Herald sends in `apns-id` when it generates one.
    public static func format(_ id: UUID) -> String {
        id.uuidString.lowercased()
    }
}
