public import Foundation

/// Any JSON value, kept exactly as it was sent (numbers keep whether they were integers).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one JSON document.
    ///
    /// - Throws: ``JSONParser/SyntaxError`` when `data` is not exactly one JSON value.
    public static func parse(_ data: Data) throws(JSONParser.SyntaxError) -> JSONValue {
        try parsing(data) { parser throws(JSONParser.SyntaxError) in try parser.parseDocument() }
    }

    /// Parses a JSON object, keeping the member `rawKey` as the exact bytes it was sent in (checked as
    /// JSON, not parsed into a value): for a payload embedded in a message and passed on unchanged.
    ///
    /// - Throws: ``JSONParser/SyntaxError`` when `data` is not exactly one JSON object.
    public static func parseObject(_ data: Data, keepingRaw rawKey: String) throws(JSONParser.SyntaxError) -> (
        members: [String: JSONValue], raw: Data?
    ) {
        let (members, range) = try parsing(data) { parser throws(JSONParser.SyntaxError) in
            try parser.parseObjectDocument(keepingRaw: rawKey)
        }
        return (members, range.map { Data(data[data.startIndex + $0.lowerBound..<data.startIndex + $0.upperBound]) })
    }

    /// Runs `body` with a parser over `data`'s bytes.
    private static func parsing<T>(
        _ data: Data, _ body: (inout JSONParser) throws(JSONParser.SyntaxError) -> T
    ) throws(JSONParser.SyntaxError) -> T {
        let result = data.withUnsafeBytes { bytes -> Result<T, JSONParser.SyntaxError> in
            var parser = JSONParser(bytes)
            do throws(JSONParser.SyntaxError) {
                return .success(try body(&parser))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Compact JSON text with keys sorted.
    public func encoded() -> Data {
        var writer = JSONWriter()
        writer.write(self)
        return Data(writer.bytes)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let dictionary) = self { return dictionary[key] }
        return nil
    }

    /// The value a JSON pointer (RFC 6901) names: `""` is the whole document, `/aps/alert/title` a member of a member,
    /// `/items/0` an array's first element (`~1` stands for `/` in a name, `~0` for `~`); nil when there is none.
    public func value(at pointer: String) -> JSONValue? {
        guard !pointer.isEmpty else { return self }
        guard pointer.hasPrefix("/") else { return nil }
        var current = self
        for token in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let name = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current {
            case .object(let members):
                guard let member = members[name] else { return nil }
                current = member
            case .array(let elements):
                guard let index = Int(name), name == String(index), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a number when it is an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value.rounded() == value && abs(value) < 9e15: Int64(value)
        default: nil
        }
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
