import Foundation
import HeraldWire

/// One bundle's `Info.plist`, read with `PropertyListSerialization` (XML or binary), with typed lookups that
/// fail with an `AppManifestError` naming the file and the key.
struct BundleInfoPlist {
    /// The bundle directory (`Name.app` or `Name.appex`).
    let bundle: URL
    /// Its `Info.plist`.
    let file: URL
    private let values: [String: Any]

    /// Reads `bundle/Info.plist`; `what` names the bundle in messages ("app bundle", "extension bundle").
    static func read(bundle: URL, file: URL? = nil, what: String) throws(AppManifestError) -> BundleInfoPlist {
        let file = file ?? bundle.appendingPathComponent("Info.plist", isDirectory: false)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw AppManifestError(
                .missingInfoPlist, file: file,
                "no readable Info.plist in the \(what) \(bundle.path); every bundle needs an Info.plist with CFBundleIdentifier and CFBundleExecutable (see docs/apps.md)"
            )
        }
        if BinaryPropertyList.holdsASet(data) {
            throw AppManifestError(
                .notAPropertyList, file: file,
                "\(file.path) is a binary property list holding a set, which an Info.plist never has; write it as an XML or binary plist of dictionaries, arrays, strings, numbers and booleans (see docs/apps.md)"
            )
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            let reason = (error as NSError).userInfo["NSDebugDescription"] as? String ?? "\(error)"
            throw AppManifestError(
                .notAPropertyList, file: file,
                "\(file.path) is not a property list (\(reason)); write it as an XML or binary plist (see the sample in docs/apps.md)",
                underlying: error
            )
        }
        guard let dictionary = plist as? [String: Any] else {
            throw AppManifestError(
                .notAPropertyList, file: file,
                "\(file.path) holds \(Self.describe(plist)) at the top level; an Info.plist is a dictionary (<dict>) of keys like CFBundleIdentifier"
            )
        }
        return BundleInfoPlist(bundle: bundle, file: file, values: dictionary)
    }

    private init(bundle: URL, file: URL, values: [String: Any]) {
        self.bundle = bundle
        self.file = file
        self.values = values
    }

    func value(_ key: String) -> Any? { values[key] }

    /// The string at `key`; nil when absent; an error when it is not a string.
    func string(_ key: String, in dictionary: [String: Any]? = nil, path: String? = nil) throws(AppManifestError) -> String? {
        guard let value = (dictionary ?? values)[key] else { return nil }
        guard let string = value as? String else {
            throw invalid(path ?? key, "must be a string, not \(Self.describe(value))")
        }
        return string
    }

    /// The non-empty string at `key`, or a `missingKey` error saying what to add (`example` is a sample value).
    func requiredString(_ key: String, in dictionary: [String: Any]? = nil, path: String? = nil, example: String) throws(AppManifestError) -> String {
        guard let string = try self.string(key, in: dictionary, path: path), !string.isEmpty else {
            throw AppManifestError(
                .missingKey, file: file,
                "\(file.path) has no \(path ?? key); add <key>\(key)</key><string>\(example)</string>"
            )
        }
        if string.contains("$(") {
            throw invalid(path ?? key, "is \"\(string)\", an Xcode build setting that only Xcode expands; write the value itself, like \(example)")
        }
        return string
    }

    /// The Boolean at `key` (`<true/>`, `<false/>`); nil when absent; an error when it is something else.
    func bool(_ key: String) throws(AppManifestError) -> Bool? {
        guard let value = values[key] else { return nil }
        guard let bool = value as? Bool else { throw invalid(key, "must be <true/> or <false/>, not \(Self.describe(value))") }
        return bool
    }

    /// The dictionary at `key`; nil when absent; an error when it is something else.
    func dictionary(_ key: String, in dictionary: [String: Any]? = nil, path: String? = nil) throws(AppManifestError) -> [String: Any]? {
        guard let value = (dictionary ?? values)[key] else { return nil }
        guard let result = value as? [String: Any] else {
            throw invalid(path ?? key, "must be a dictionary (<dict>), not \(Self.describe(value))")
        }
        return result
    }

    /// A valid bundle identifier at `CFBundleIdentifier`.
    func bundleIdentifier() throws(AppManifestError) -> String {
        let identifier = try requiredString("CFBundleIdentifier", example: "com.example.app")
        guard TopicSyntax.isValid(identifier) else {
            throw invalid(
                "CFBundleIdentifier", "is \"\(identifier)\", which is not a bundle id; use letters, digits, '.', '-' and '_', like com.example.app")
        }
        return identifier
    }

    /// Finds `CFBundleExecutable` in the bundle, then in `executableDirectory`; returns it absolute with
    /// symlinks resolved.
    func executable(executableDirectory: URL?) throws(AppManifestError) -> URL {
        let name = try requiredString("CFBundleExecutable", example: "MyApp")
        guard !name.contains("/"), name != ".", name != ".." else {
            throw invalid("CFBundleExecutable", "is \"\(name)\"; it names the executable file in the bundle (or in --executable-dir), without a path")
        }
        var candidates = [bundle.appendingPathComponent(name, isDirectory: false)]
        if let executableDirectory {
            candidates.append(executableDirectory.appendingPathComponent(name, isDirectory: false))
        }
        guard let found = candidates.lazy.compactMap(ResolvedPath.resolve).first else {
            var message =
                "the executable \(name) (CFBundleExecutable in \(file.path)) was not found; looked for "
                + candidates.map(\.path).joined(separator: " and ")
            if executableDirectory == nil {
                message += "; put it in the bundle, or pass --executable-dir DIR with the directory it was built in (for SwiftPM: .build/debug)"
            } else {
                message += "; build it first, or fix --executable-dir"
            }
            throw AppManifestError(.executableNotFound, file: file, message)
        }
        guard ResolvedPath.isExecutableFile(found) else {
            throw AppManifestError(
                .executableNotExecutable, file: file,
                "\(found.path) (CFBundleExecutable in \(file.path)) is not an executable file; build it, or make it executable with chmod +x"
            )
        }
        return URL(fileURLWithPath: found.path, isDirectory: false)
    }

    func invalid(_ key: String, _ problem: String) -> AppManifestError {
        AppManifestError(.invalidValue, file: file, "\(file.path): \(key) \(problem)")
    }

    static func describe(_ value: Any) -> String {
        switch value {
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "a dictionary"
        case is Date: return "a date"
        case is Data: return "data"
        default: break
        }
        // Checked by type and identity: on Linux any NSNumber casts to Bool.
        if type(of: value) == Bool.self { return "a boolean" }
        if let number = value as? NSNumber {
            return number === NSNumber(value: true) || number === NSNumber(value: false) ? "a boolean" : "a number"
        }
        return "a \(type(of: value))"
    }
}
