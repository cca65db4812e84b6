import ArgumentParser
import Configuration
import Foundation
import HeraldWire

/// A `herald serve --config` file: one JSON object whose keys are the settings' names, as the flags spell them
/// without their dashes (`{"provider-port": 2197}`); `null` leaves a setting unset.
///
/// The whole file is checked before any of it is used, and each problem is refused in words naming the file: a key
/// no setting has (a typo like `provider_port` must not pass unnoticed), a value of the wrong JSON type, and text
/// that is not JSON, with its line and column. The file is read with HeraldWire's strict JSON parser rather than
/// swift-configuration's `JSONSnapshot` (Foundation's `JSONSerialization`), which cannot list the keys it read,
/// takes `true` for a port and `1` for a flag, and reports a syntax error by byte offset; the checked values then
/// reach swift-configuration as an in-memory provider, after the flags and the environment.
struct ServeConfigFile: Sendable {
    let path: String
    /// The settings the file gives a value (not `null`).
    let values: [ServeSettingKey: ConfigContent]

    /// Reads and checks the file at `path`.
    ///
    /// - Throws: `ValidationError` saying what is wrong with the file.
    init(path: String) throws {
        try self.init(path: path, contents: Self.read(path))
    }

    /// Checks `contents`, the text of the file at `path`.
    ///
    /// - Throws: `ValidationError` saying what is wrong with the file.
    init(path: String, contents: Data) throws {
        self.path = path
        let document: JSONValue
        do {
            document = try JSONValue.parse(contents)
        } catch {
            throw ValidationError("the configuration file \(path) is not valid JSON: \(Self.describe(error, in: contents))")
        }
        guard case .object(let members) = document else {
            throw ValidationError(
                #"the configuration file \#(path) must hold one JSON object, like {"host": "0.0.0.0"}, not \#(Self.kind(of: document))"#)
        }
        let unknown = members.keys.filter { name in !ServeSettingKey.fileKeys.contains { $0.name == name } }
        if !unknown.isEmpty { throw ValidationError(Self.unknownKeysProblem(unknown.sorted(), path: path)) }
        var values: [ServeSettingKey: ConfigContent] = [:]
        for key in ServeSettingKey.fileKeys {
            guard let value = members[key.name], value != .null else { continue }
            guard let content = Self.content(value, as: key.type) else {
                let text = String(decoding: value.encoded(), as: UTF8.self)
                throw ValidationError("\(key.name) in \(path) must be \(key.requirement), not \(text)")
            }
            values[key] = content
        }
        self.values = values
    }

    /// The file's values as swift-configuration reads them, the store's marked secret.
    var provider: InMemoryProvider {
        InMemoryProvider(
            name: path,
            values: Dictionary(
                uniqueKeysWithValues: values.map { key, content in (key.configKey, ConfigValue(content, isSecret: key == .store)) }))
    }

    private static func read(_ path: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError("cannot read the configuration file \(path): no such file")
        }
        if isDirectory.boolValue {
            throw ValidationError("cannot read the configuration file \(path): it is a directory, not a file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ValidationError("cannot read the configuration file \(path): permission denied to the user herald runs as")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot read the configuration file \(path): \(error.localizedDescription)")
        }
    }

    /// `value` as a setting of `type` takes it, or nil when the JSON type is not that one (an integer serves
    /// for a number, not the other way round; nothing else converts).
    private static func content(_ value: JSONValue, as type: ConfigType) -> ConfigContent? {
        switch (type, value) {
        case (.string, .string(let string)): .string(string)
        case (.int, .integer(let integer)): .int(Int(integer))
        case (.double, .integer(let integer)): .double(Double(integer))
        case (.double, .number(let number)): .double(number)
        case (.bool, .bool(let bool)): .bool(bool)
        default: nil
        }
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Where the parser stopped, as a line and column (counted in bytes, from 1), and what it found there.
    private static func describe(_ error: JSONParser.SyntaxError, in contents: Data) -> String {
        let bytes = [UInt8](contents)
        guard !bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return "the file is empty" }
        let offset = min(error.offset, bytes.count)
        let before = bytes[..<offset]
        let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        let found: String
        if offset == bytes.count {
            found = "the file ends before the JSON does"
        } else if (0x21...0x7E).contains(bytes[offset]) {
            found = "unexpected '\(Character(Unicode.Scalar(bytes[offset])))'"
        } else {
            found = "unexpected byte 0x\(String(bytes[offset], radix: 16))"
        }
        return "line \(line), column \(column): \(found)"
    }

    /// Names each unknown key with the setting it may be a typo of, then lists the keys there are.
    static func unknownKeysProblem(_ unknown: [String], path: String) -> String {
        let named = unknown.map { name in
            guard let closest = ServeSettingKey.closest(to: name) else { return #""\#(name)""# }
            return #""\#(name)" (did you mean "\#(closest.name)"?)"#
        }
        let keys = ServeSettingKey.fileKeys.map(\.name).joined(separator: ", ")
        let subject = unknown.count == 1 ? "an unknown key" : "unknown keys"
        return "the configuration file \(path) has \(subject) \(named.joined(separator: ", ")); the keys are \(keys)"
    }
}
