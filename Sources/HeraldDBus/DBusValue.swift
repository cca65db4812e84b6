/// One D-Bus value with its type, as a message carries it.
///
/// Arrays name their element type, so an empty one still has a signature; `a{sv}` (a dictionary of variants, the
/// shape of notification hints) is an array of ``dictEntry(_:_:)`` elements, made with ``hints(_:)``.
package indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    /// `ay`, kept as bytes.
    case bytes([UInt8])
    /// An array whose elements have the signature `element`.
    case array(element: String, [DBusValue])
    /// A struct: `(…)`.
    case structure([DBusValue])
    /// A dictionary entry: `{kv}`, only inside an array.
    case dictEntry(DBusValue, DBusValue)
    case variant(DBusValue)

    /// The D-Bus type signature of this value.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        }
    }

    /// `a{sv}`: each value in a variant, keys in order (so the same hints make the same message).
    package static func hints(_ entries: [String: DBusValue]) -> DBusValue {
        .array(element: "{sv}", entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    /// `as`.
    package static func strings(_ strings: [String]) -> DBusValue {
        .array(element: "s", strings.map(DBusValue.string))
    }

    // MARK: Reading

    package var string: String? {
        switch self {
        case .string(let string), .objectPath(let string): string
        case .variant(let inner): inner.string
        default: nil
        }
    }

    /// Any integer type that fits, or what a variant holds.
    package var integer: Int64? {
        switch self {
        case .byte(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): Int64(exactly: value)
        case .variant(let inner): inner.integer
        default: nil
        }
    }

    /// The elements of an array (`ay` as bytes).
    package var elements: [DBusValue]? {
        switch self {
        case .array(_, let elements): elements
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        case .variant(let inner): inner.elements
        default: nil
        }
    }

    /// An `a{s…}` as a dictionary, variants unwrapped.
    package var dictionary: [String: DBusValue]? {
        guard let elements else { return nil }
        var result: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictEntry(let key, let value) = element, let key = key.string else { return nil }
            if case .variant(let inner) = value { result[key] = inner } else { result[key] = value }
        }
        return result
    }
}
