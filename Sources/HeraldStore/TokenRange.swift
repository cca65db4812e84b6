/// The hex digits a token prefix covers, as a range of the index: from the prefix up to (not including) the
/// prefix with its last digit raised by one character (`ab9f` → `ab9g`; `:` after `9`), which no token that
/// starts with the prefix reaches. A range, not `LIKE`, so that the database seeks instead of scanning (in byte order:
/// PostgreSQL's token columns are `COLLATE "C"`).
package struct TokenRange: Sendable, Hashable {
    package var lower: String
    package var upper: String

    /// Nil unless `prefix` is 1 to 400 lowercase hex digits.
    package init?(prefix: String) {
        var bytes = Array(prefix.utf8)
        guard (1...400).contains(bytes.count), bytes.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        lower = prefix
        bytes[bytes.count - 1] += 1
        upper = String(decoding: bytes, as: UTF8.self)
    }
}
