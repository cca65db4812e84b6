package import Foundation

/// A property-list value as `userInfo` holds it, in a form that can be stored and compared.
///
/// Accepted: `String`/`NSString`, `Bool`, every integer type, `Double`/`Float`/`CGFloat`, `NSNumber` (a boolean
/// `NSNumber` stays a boolean), `Date`, `Data`, `NSNull`, arrays of these and dictionaries with `String` keys.
/// Anything else (URLs, custom types, non-string keys) and non-finite numbers (JSON cannot hold them) are
/// refused with a `RecordError` naming where the value is, like `userInfo["order"][2]`.
///
/// Back in `userInfo` the values come out as `String`, `Bool`, `Int` (or `UInt64` above `Int64.max`),
/// `Double`, `Date`, `Data`, `NSNull`, `[Any]` and `[String: Any]`: every integer type comes back as `Int`
/// and `Float` as `Double`.
package enum PropertyListValue: Sendable, Hashable {
    case string(String)
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case double(Double)
    case date(Date)
    case data(Data)
    case null
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Converts a value from `userInfo`; throws `RecordError` when it is not a property-list value.
    package init(_ value: Any) throws(RecordError) {
        try self.init(value, path: "value")
    }

    /// Converts a whole `userInfo` dictionary; throws `RecordError` naming the first value that is not a
    /// property-list value, or a key that is not a string.
    package static func dictionary(fromUserInfo userInfo: [AnyHashable: Any]) throws(RecordError) -> [String: PropertyListValue] {
        try convert(userInfo, path: "userInfo")
    }

    private init(_ value: Any, path: String) throws(RecordError) {
        if type(of: value) is AnyClass, let number = value as? NSNumber {
            self = try Self.convert(number, path: path)
            return
        }
        switch value {
        case let string as String: self = .string(string)
        case let bool as Bool: self = .bool(bool)
        case let int as Int: self = .integer(Int64(int))
        case let int as Int8: self = .integer(Int64(int))
        case let int as Int16: self = .integer(Int64(int))
        case let int as Int32: self = .integer(Int64(int))
        case let int as Int64: self = .integer(int)
        case let uint as UInt: self = Self.unsigned(UInt64(uint))
        case let uint as UInt8: self = .integer(Int64(uint))
        case let uint as UInt16: self = .integer(Int64(uint))
        case let uint as UInt32: self = .integer(Int64(uint))
        case let uint as UInt64: self = Self.unsigned(uint)
        case let double as Double: self = try Self.finite(double, path: path)
        case let float as Float: self = try Self.finite(Double(float), path: path)
        case let float as CGFloat: self = try Self.finite(Double(float), path: path)
        case let date as Date: self = .date(date)
        case let data as Data: self = .data(data)
        case is NSNull: self = .null
        case let dictionary as [AnyHashable: Any]: self = .dictionary(try Self.convert(dictionary, path: path))
        case let array as [Any]:
            var values: [PropertyListValue] = []
            values.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                values.append(try PropertyListValue(element, path: "\(path)[\(index)]"))
            }
            self = .array(values)
        default:
            throw RecordError(
                "\(path) holds a \(type(of: value)), which is not a property-list value (use strings, numbers, booleans, dates, data, arrays and dictionaries with string keys)"
            )
        }
    }

    private static func convert(_ dictionary: [AnyHashable: Any], path: String) throws(RecordError) -> [String: PropertyListValue] {
        var values: [String: PropertyListValue] = [:]
        values.reserveCapacity(dictionary.count)
        for (key, element) in dictionary {
            guard let name = key.base as? String else {
                throw RecordError("\(path) has the key \(key.base) of type \(type(of: key.base)); property-list dictionaries take string keys only")
            }
            values[name] = try PropertyListValue(element, path: "\(path)[\"\(name)\"]")
        }
        return values
    }

    private static func convert(_ number: NSNumber, path: String) throws(RecordError) -> PropertyListValue {
        // Foundation keeps two shared boolean NSNumbers (the same on Linux and Darwin).
        if number === NSNumber(value: true) || number === NSNumber(value: false) {
            return .bool(number.boolValue)
        }
        switch String(cString: number.objCType) {
        case "f", "d": return try finite(number.doubleValue, path: path)
        case "Q", "L", "I", "S", "C": return unsigned(number.uint64Value)
        default: return .integer(number.int64Value)
        }
    }

    private static func unsigned(_ value: UInt64) -> PropertyListValue {
        value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsignedInteger(value)
    }

    private static func finite(_ value: Double, path: String) throws(RecordError) -> PropertyListValue {
        guard value.isFinite else {
            throw RecordError("\(path) is \(value), which JSON cannot hold")
        }
        return .double(value)
    }

    /// The value as `userInfo` gives it back to the app.
    package var foundationValue: Any {
        switch self {
        case .string(let string): string
        case .bool(let bool): bool
        case .integer(let int): Int(int)
        case .unsignedInteger(let uint): uint
        case .double(let double): double
        case .date(let date): date
        case .data(let data): data
        case .null: NSNull()
        case .array(let values): values.map(\.foundationValue)
        case .dictionary(let values): values.mapValues(\.foundationValue)
        }
    }

    /// A `userInfo` dictionary from stored values.
    package static func userInfo(from values: [String: PropertyListValue]) -> [AnyHashable: Any] {
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in values {
            userInfo[key] = value.foundationValue
        }
        return userInfo
    }
}
