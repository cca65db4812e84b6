/// A small, strict JSON parser (RFC 8259) into ``JSONValue`` that keeps integers apart from doubles.
///
/// It runs on every notification the gateway accepts, so it reads bytes directly and allocates only
/// for the values it returns. Nesting is bounded so hostile payloads cannot exhaust the stack.
public struct JSONParser {
    public struct SyntaxError: Error, Hashable, Sendable {
        /// Byte offset where parsing stopped.
        public var offset: Int
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0
    /// Just entered a container: its first entry has no comma before it. (Containers nest, and an inner one
    /// has ended before its outer one reads on, so one flag serves every level.)
    private var atContainerStart = false
    private static let maximumDepth = 64

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(SyntaxError) -> JSONValue {
        let value = try parseValue()
        try finishDocument()
        return value
    }

    /// Parses a document that must be an object, keeping the value of its member `rawKey` as the byte range
    /// it was sent in (checked, not parsed into a value); a repeated key counts once, the last time.
    mutating func parseObjectDocument(keepingRaw rawKey: String) throws(SyntaxError) -> (members: [String: JSONValue], raw: Range<Int>?) {
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(16)
        var raw: Range<Int>?
        try parseMembers { parser, key throws(SyntaxError) in
            if key == rawKey {
                parser.skipWhitespace()
                let start = parser.index
                try parser.skipValue()
                raw = start..<parser.index
            } else {
                members[key] = try parser.parseValue()
            }
        }
        try finishDocument()
        return (members, raw)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            index += 1
        }
    }

    private mutating func expect(_ literal: StaticString) throws(SyntaxError) {
        let utf8 = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in utf8 {
            guard current == byte else { throw SyntaxError(offset: index) }
            index += 1
        }
    }

    mutating func parseValue() throws(SyntaxError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw SyntaxError(offset: index) }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return try parseNumber()
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw SyntaxError(offset: index) }
        index += 1
    }

    // MARK: Reading step by step, for checks that need no values built

    /// The next byte after whitespace, without consuming it; nil at the end.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return current
    }

    /// Enters the object that comes next and returns true; returns false, consuming nothing, if the next
    /// value is not an object. ``nextMember()`` then reads it.
    mutating func enterObject() throws(SyntaxError) -> Bool {
        try enterContainer(opening: UInt8(ascii: "{"))
    }

    /// The next member's key, leaving the parser at its value (which the caller must consume), or nil once
    /// the object has ended.
    mutating func nextMember() throws(SyntaxError) -> String? {
        guard try nextEntry(closingWith: UInt8(ascii: "}")) else { return nil }
        guard peek() == UInt8(ascii: "\"") else { throw SyntaxError(offset: index) }
        let key = try parseString()
        skipWhitespace()
        try expect(":")
        return key
    }

    /// Enters the array that comes next and returns true; returns false, consuming nothing, if the next
    /// value is not an array. ``nextElement()`` then reads it.
    mutating func enterArray() throws(SyntaxError) -> Bool {
        try enterContainer(opening: UInt8(ascii: "["))
    }

    /// Whether another element follows (the caller must consume it); false once the array has ended.
    mutating func nextElement() throws(SyntaxError) -> Bool {
        try nextEntry(closingWith: UInt8(ascii: "]"))
    }

    private mutating func enterContainer(opening: UInt8) throws(SyntaxError) -> Bool {
        guard peek() == opening else { return false }
        try enter()
        atContainerStart = true
        return true
    }

    /// Steps past the comma before an entry, or past the container's closing byte (then false).
    private mutating func nextEntry(closingWith closing: UInt8) throws(SyntaxError) -> Bool {
        let isFirst = atContainerStart
        atContainerStart = false
        if peek() == closing {
            index += 1
            depth -= 1
            return false
        }
        if !isFirst {
            guard current == UInt8(ascii: ",") else { throw SyntaxError(offset: index) }
            index += 1
        }
        return true
    }

    /// Checks that nothing but whitespace follows the document.
    mutating func finishDocument() throws(SyntaxError) {
        guard peek() == nil else { throw SyntaxError(offset: index) }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue {
        // Room for a typical object up front: growing a dictionary rehashes every key.
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(6)
        try parseMembers { parser, key throws(SyntaxError) in object[key] = try parser.parseValue() }
        return .object(object)
    }

    /// Reads `{ "key": value, … }`, leaving each value to `member`, which must consume it.
    private mutating func parseMembers(_ member: (inout JSONParser, String) throws(SyntaxError) -> Void) throws(SyntaxError) {
        guard try enterObject() else { throw SyntaxError(offset: index) }
        while let key = try nextMember() {
            try member(&self, key)
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue {
        var array: [JSONValue] = []
        try parseElements { parser throws(SyntaxError) in array.append(try parser.parseValue()) }
        return .array(array)
    }

    /// Reads `[ value, … ]`, leaving each value to `element`, which must consume it.
    private mutating func parseElements(_ element: (inout JSONParser) throws(SyntaxError) -> Void) throws(SyntaxError) {
        guard try enterArray() else { throw SyntaxError(offset: index) }
        while try nextElement() {
            try element(&self)
        }
    }

    /// Checks one value as ``parseValue()`` would, building no containers and no strings.
    mutating func skipValue() throws(SyntaxError) {
        switch peek() {
        case UInt8(ascii: "{"): try parseMembers { parser, _ throws(SyntaxError) in try parser.skipValue() }
        case UInt8(ascii: "["): try parseElements { parser throws(SyntaxError) in try parser.skipValue() }
        case UInt8(ascii: "\""): try skipString()
        default: _ = try parseValue()
        }
    }

    private mutating func skipString() throws(SyntaxError) {
        let start = index
        index += 1  // opening quote
        var highBits: UInt8 = 0
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
            highBits |= byte
            index += 1
        }
        if current == UInt8(ascii: "\""), highBits < 0x80 {
            index += 1
            return
        }
        index = start  // escapes or non-ASCII bytes: the full reading checks them
        _ = try parseString()
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1  // opening quote
        // Most strings have no escapes: they become a String straight from the bytes.
        let start = index
        var highBits: UInt8 = 0
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
            highBits |= byte
            index += 1
        }
        if current == UInt8(ascii: "\"") {
            let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index]).assumingMemoryBound(to: UInt8.self)
            index += 1
            // ASCII needs no validation, and the stdlib's generic validating initializer is slow.
            if highBits < 0x80 { return String(decoding: raw, as: UTF8.self) }
            guard let text = String(validating: raw, as: UTF8.self) else { throw SyntaxError(offset: start) }
            return text
        }
        var scalars = Array(bytes[start..<index])
        while true {
            guard let byte = current else { throw SyntaxError(offset: index) }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scalars, as: UTF8.self) else { throw SyntaxError(offset: index) }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &scalars)
            case 0..<0x20:
                throw SyntaxError(offset: index - 1)
            default:
                scalars.append(byte)
            }
        }
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(SyntaxError) {
        guard let byte = current else { throw SyntaxError(offset: index) }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var code = try parseHex4()
            if (0xD800..<0xDC00).contains(code) {
                try expect("\\u")
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw SyntaxError(offset: index) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw SyntaxError(offset: index) }
            out.append(contentsOf: UTF8.encode(scalar)!)
        default:
            throw SyntaxError(offset: index - 1)
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = current?.hexValue else { throw SyntaxError(offset: index) }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(SyntaxError) -> JSONValue {
        let start = index
        var isInteger = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (0x30...0x39).contains(first) else { throw SyntaxError(offset: index) }
        if first == 0x30 {
            index += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard skipRequiredDigits() else { throw SyntaxError(offset: index) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipRequiredDigits() else { throw SyntaxError(offset: index) }
        }
        if isInteger, let value = integer(in: start..<index) { return .integer(value) }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // A number too large for a double (`1e999`) is refused, as Apple's JSONSerialization refuses it: JSON has no
        // infinity, so it could not be written back (RFC 8259 §6 lets a parser limit the range).
        guard let value = Double(text), value.isFinite else { throw SyntaxError(offset: start) }
        return .number(value)
    }

    /// The integer spelled by `range` (an optional minus and digits), or nil when it does not fit 64 bits.
    private func integer(in range: Range<Int>) -> Int64? {
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        var value: Int64 = 0
        for index in (negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound {
            let digit = Int64(bytes[index] - 0x30)
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowAgain) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow || overflowAgain { return nil }
            value = next
        }
        return value
    }

    private mutating func skipDigits() {
        while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
    }

    private mutating func skipRequiredDigits() -> Bool {
        let before = index
        skipDigits()
        return index > before
    }
}
