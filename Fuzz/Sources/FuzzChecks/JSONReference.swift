import Foundation
import HeraldWire

/// How JSONParser's reading compares with JSONSerialization's, and the inputs where they differ by design
/// (docs/reliability.md lists them).
enum JSONReference {
    /// Whether `bytes` are compared at all. Not compared, by design:
    /// - text in another encoding than UTF-8 (a byte order mark, or NUL bytes in the first four as UTF-16 and
    ///   UTF-32 have them): JSONSerialization detects UTF-16 and UTF-32; APNs payloads are UTF-8 (RFC 8259 §8.1);
    /// - nesting deeper than JSONParser's 64 levels, which it refuses so hostile payloads cannot exhaust the stack.
    ///
    /// And where JSONSerialization accepts a comma before `]` or `}`, JSONParser must accept the text without it.
    static func isCompared(_ bytes: Data, parsed: JSONValue?) -> Bool {
        let head = Array(bytes.prefix(4))
        if head.contains(0) || head.starts(with: [0xEF, 0xBB, 0xBF]) || head.starts(with: [0xFE, 0xFF])
            || head.starts(with: [0xFF, 0xFE])
        {
            return false
        }
        return parsed != nil || nestingDepth(bytes) <= 64
    }

    /// `bytes` without the commas before a closing `]` or `}` (outside strings), which JSONSerialization accepts and
    /// JSONParser, as RFC 8259, refuses.
    static func withoutTrailingCommas(_ bytes: Data) -> Data {
        var kept: [UInt8] = []
        var pendingComma: Int?
        var strings = StringScanner()
        for byte in bytes {
            if strings.isInString(byte) {
                kept.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                pendingComma = kept.count
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if let comma = pendingComma { kept.remove(at: comma) }
                pendingComma = nil
            case 0x20, 0x0A, 0x0D, 0x09:
                break
            default:
                pendingComma = nil
            }
            kept.append(byte)
        }
        return Data(kept)
    }

    /// The deepest nesting of arrays and objects outside strings.
    static func nestingDepth(_ bytes: Data) -> Int {
        var depth = 0
        var deepest = 0
        var strings = StringScanner()
        for byte in bytes where !strings.isInString(byte) {
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// Follows JSON text byte by byte to tell a string's bytes from the structure around it.
    struct StringScanner {
        private var inString = false
        private var escaped = false

        /// Whether `byte`, the text's next, belongs to a string: its contents or its closing quote. An opening quote
        /// does not (a value starts there); it starts the string for the bytes after it.
        mutating func isInString(_ byte: UInt8) -> Bool {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                return true
            }
            inString = byte == UInt8(ascii: "\"")
            return false
        }
    }

    /// Whether JSONSerialization's `reference` is the same value as `ours`: strings scalar for scalar, numbers of
    /// the same value (JSONSerialization's NSNumber bridges to Bool too, so `true` and `1` are told apart by
    /// JSONParser alone).
    static func isSame(_ ours: JSONValue, _ reference: Any) -> Bool {
        switch ours {
        case .null:
            return reference is NSNull
        case .bool(let value):
            return (reference as? Bool) == value
        case .integer(let value):
            // JSONSerialization reads some integers near Int64's limits as a Decimal: compared exactly as one.
            if let decimal = reference as? Decimal { return decimal == Decimal(value) }
            guard let number = reference as? NSNumber else { return false }
            if isFloatingPoint(number) { return number.doubleValue == Double(value) }
            return number.int64Value == value
        case .number(let value):
            guard let number = reference as? NSNumber else { return false }
            // JSONSerialization keeps a long mantissa or a large integer as a Decimal, whose conversion to a double
            // is not correctly rounded (it may be off by far more than an ulp), unlike the Double(String) JSONParser uses.
            let tolerance = reference is Decimal ? abs(value) * 1e-12 : 0
            return abs(number.doubleValue - value) <= tolerance
        case .string(let value):
            guard let string = reference as? String else { return false }
            return string.unicodeScalars.elementsEqual(value.unicodeScalars)
        case .array(let elements):
            guard let array = reference as? [Any], array.count == elements.count else { return false }
            return zip(elements, array).allSatisfy { isSame($0, $1) }
        case .object(let members):
            guard let dictionary = reference as? [String: Any], dictionary.count == members.count else { return false }
            return members.allSatisfy { key, value in dictionary[key].map { isSame(value, $0) } ?? false }
        }
    }

    private static func isFloatingPoint(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "d" || type == "f"
    }
}
