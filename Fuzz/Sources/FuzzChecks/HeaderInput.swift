/// A header list read from fuzz bytes: a first byte whose low bit says request block (0) or trailers (1), then
/// fields, each a length byte and that many bytes of name, a length byte and that many bytes of value (lengths
/// taken modulo 128; bytes past the end are left out). Bytes that are not UTF-8 become U+FFFD, as HPACKHeaders
/// holds strings.
struct HeaderInput {
    var isTrailers: Bool
    var fields: [(String, String)]

    init(_ bytes: [UInt8]) {
        isTrailers = (bytes.first ?? 0) & 1 == 1
        fields = []
        var index = 1
        func next() -> [UInt8]? {
            guard index < bytes.count else { return nil }
            let length = Int(bytes[index] & 0x7F)
            index += 1
            let end = min(bytes.count, index + length)
            defer { index = end }
            return Array(bytes[index..<end])
        }
        while let name = next() {
            let value = next() ?? []
            fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
    }
}
