import CSystemd

/// Writes values into and reads them out of an sd-bus message. Used only on the bus thread.
enum DBusMessageCoding {
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        for value in values { try append(value, to: message) }
    }

    static func append(_ value: DBusValue, to message: OpaquePointer) throws(DBusError) {
        let result: Int32
        switch value {
        case .byte(var byte): result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "y")), &byte)
        case .boolean(let bool):
            var int: Int32 = bool ? 1 : 0
            result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &int)
        case .int32(var int): result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &int)
        case .uint32(var int): result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &int)
        case .int64(var int): result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "x")), &int)
        case .uint64(var int): result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "t")), &int)
        case .double(var double): result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &double)
        case .string(let string): result = string.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        case .objectPath(let path): result = path.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) }
        case .bytes(let bytes):
            result = bytes.withUnsafeBytes { sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) }
        case .array(let element, let elements):
            try container("a", element, of: message) { () throws(DBusError) in try append(elements, to: message) }
            return
        case .structure(let members):
            try container("r", members.map(\.signature).joined(), of: message) { () throws(DBusError) in try append(members, to: message) }
            return
        case .dictEntry(let key, let entry):
            try container("e", key.signature + entry.signature, of: message) { () throws(DBusError) in try append([key, entry], to: message) }
            return
        case .variant(let inner):
            try container("v", inner.signature, of: message) { () throws(DBusError) in try append(inner, to: message) }
            return
        }
        try check(result, "append \(value.signature)")
    }

    private static func container(
        _ type: Character, _ contents: String, of message: OpaquePointer, _ body: () throws(DBusError) -> Void
    ) throws(DBusError) {
        let code = CChar(type.asciiValue!)
        try check(contents.withCString { sd_bus_message_open_container(message, code, $0) }, "open \(type)\(contents)")
        try body()
        try check(sd_bus_message_close_container(message), "close \(type)\(contents)")
    }

    /// Every value left in the message (or in the container it is in).
    static func readAll(from message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try read(from: message) { values.append(value) }
        return values
    }

    /// The next value, or nil at the end of the message or container.
    static func read(from message: OpaquePointer) throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &type, &contentsPointer)
        try check(peeked, "peek")
        guard peeked > 0 else { return nil }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try basic(message, type, UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(message, type, Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int32(Int32(try basic(message, type, Int16(0))))
        case UInt8(ascii: "q"): return .uint32(UInt32(try basic(message, type, UInt16(0))))
        case UInt8(ascii: "i"), UInt8(ascii: "h"): return .int32(try basic(message, type, Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(message, type, UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(message, type, Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(message, type, UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(message, type, Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "g"): return .string(try text(message, type))
        case UInt8(ascii: "o"): return .objectPath(try text(message, type))
        case UInt8(ascii: "a") where contents == "y":
            var pointer: UnsafeRawPointer?
            var size = 0
            try check(sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size), "read ay")
            guard let pointer, size > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
        case UInt8(ascii: "a"): return .array(element: contents, try inside(message, type, contents))
        case UInt8(ascii: "r"): return .structure(try inside(message, type, contents))
        case UInt8(ascii: "e"):
            let pair = try inside(message, type, contents)
            guard pair.count == 2 else { throw DBusError.malformed("a dictionary entry with \(pair.count) values") }
            return .dictEntry(pair[0], pair[1])
        case UInt8(ascii: "v"):
            guard let inner = try inside(message, type, contents).first else { throw DBusError.malformed("an empty variant") }
            return .variant(inner)
        default:
            throw DBusError.malformed("type \(Character(Unicode.Scalar(UInt8(bitPattern: type))))")
        }
    }

    private static func inside(_ message: OpaquePointer, _ type: CChar, _ contents: String) throws(DBusError) -> [DBusValue] {
        try check(contents.withCString { sd_bus_message_enter_container(message, type, $0) }, "enter")
        let values = try readAll(from: message)
        try check(sd_bus_message_exit_container(message), "exit")
        return values
    }

    private static func basic<T: BitwiseCopyable>(_ message: OpaquePointer, _ type: CChar, _ initial: T) throws(DBusError) -> T {
        var value = initial
        try check(withUnsafeMutableBytes(of: &value) { sd_bus_message_read_basic(message, type, $0.baseAddress) }, "read")
        return value
    }

    private static func text(_ message: OpaquePointer, _ type: CChar) throws(DBusError) -> String {
        var pointer: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(message, type, &pointer), "read string")
        return pointer.map { String(cString: $0) } ?? ""
    }

    @discardableResult
    static func check(_ result: Int32, _ what: String) throws(DBusError) -> Int32 {
        guard result >= 0 else { throw DBusError.system(what, errno: -result) }
        return result
    }
}
