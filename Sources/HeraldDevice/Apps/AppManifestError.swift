package import Foundation

/// Why an app bundle cannot be installed: which file, which key, and what to do about it.
///
/// ```swift
/// do {
///     let app = try AppManifest.load(from: URL(fileURLWithPath: "Podcast.app"))
/// } catch where error.code == .executableNotFound {
///     print(error)  // names the places looked in and suggests --executable-dir
/// }
/// ```
package struct AppManifestError: Error, CustomStringConvertible, Sendable {
    /// The kind of problem; compare with the static constants.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case missingInfoPlist, unreadableBundle, notAPropertyList, missingKey, invalidValue, executableNotFound
            case executableNotExecutable, unknownExtensionPoint, extensionIdentifierNotPrefixed
            case duplicateServiceExtension, duplicateExtension
        }
        private let value: Value

        /// No `Info.plist` where the bundle should have one.
        package static let missingInfoPlist = Code(value: .missingInfoPlist)
        /// A directory of the bundle (`PlugIns/`) cannot be listed.
        package static let unreadableBundle = Code(value: .unreadableBundle)
        /// The `Info.plist` is not an XML or binary property list holding a dictionary.
        package static let notAPropertyList = Code(value: .notAPropertyList)
        /// A required key (`CFBundleIdentifier`, `CFBundleExecutable`, `NSExtension`, …) is missing.
        package static let missingKey = Code(value: .missingKey)
        /// A key holds a value of the wrong type or form.
        package static let invalidValue = Code(value: .invalidValue)
        /// `CFBundleExecutable` names a file found neither in the bundle nor in the executable directory.
        package static let executableNotFound = Code(value: .executableNotFound)
        /// The executable exists but is not an executable regular file.
        package static let executableNotExecutable = Code(value: .executableNotExecutable)
        /// An extension's `NSExtensionPointIdentifier` is not a notification extension point.
        package static let unknownExtensionPoint = Code(value: .unknownExtensionPoint)
        /// An extension's bundle id does not start with the app's bundle id and a dot.
        package static let extensionIdentifierNotPrefixed = Code(value: .extensionIdentifierNotPrefixed)
        /// The app has more than one notification service extension.
        package static let duplicateServiceExtension = Code(value: .duplicateServiceExtension)
        /// Two extensions share a bundle id, or two content extensions claim the same category.
        package static let duplicateExtension = Code(value: .duplicateExtension)

        package var description: String { value.rawValue }
    }

    package var code: Code
    /// The file the problem is in (an `Info.plist`, or the bundle directory).
    package var file: URL?
    /// What is wrong and what to do, in a sentence a person can act on.
    package var message: String
    package var underlying: (any Error)?

    package init(_ code: Code, file: URL?, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.file = file
        self.message = message
        self.underlying = underlying
    }

    package var description: String { message }
}
