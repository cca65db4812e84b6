import Foundation
import UserNotifications

extension ExtensionManifest {
    /// Reads the extension bundle `bundle` (a `.appex` directory, absolute) of the app `appIdentifier`.
    static func load(bundle: URL, appIdentifier: String, executableDirectory: URL?) throws(AppManifestError) -> ExtensionManifest {
        let info = try BundleInfoPlist.read(bundle: bundle, what: "extension bundle")
        let identifier = try info.bundleIdentifier()
        guard identifier.hasPrefix(appIdentifier + "."), identifier.count > appIdentifier.count + 1 else {
            throw AppManifestError(
                .extensionIdentifierNotPrefixed, file: info.file,
                "\(info.file.path): the extension's CFBundleIdentifier \(identifier) must start with the app's bundle id and a dot, like \(appIdentifier).\(bundle.deletingPathExtension().lastPathComponent.lowercased())"
            )
        }
        let points =
            "com.apple.usernotifications.service (a service extension), com.apple.usernotifications.content-extension (a content extension) or com.apple.widgetkit-extension (a widget extension, for Live Activities)"
        guard let definition = try info.dictionary("NSExtension") else {
            throw AppManifestError(
                .missingKey, file: info.file,
                "\(info.file.path) has no NSExtension; add an NSExtension dictionary whose NSExtensionPointIdentifier is \(points)"
            )
        }
        let point = try info.requiredString(
            "NSExtensionPointIdentifier", in: definition, path: "NSExtension › NSExtensionPointIdentifier", example: Kind.service.rawValue
        )
        guard let kind = Kind(rawValue: point) else {
            throw AppManifestError(
                .unknownExtensionPoint, file: info.file,
                "\(info.file.path): NSExtensionPointIdentifier \(point) is not an extension point Herald runs; it runs \(points) — fix the identifier or remove \(bundle.lastPathComponent) from PlugIns"
            )
        }
        let principalClass = try info.string("NSExtensionPrincipalClass", in: definition, path: "NSExtension › NSExtensionPrincipalClass")
        let attributeValues = try info.dictionary("NSExtensionAttributes", in: definition, path: "NSExtension › NSExtensionAttributes") ?? [:]
        let categories = try Self.categories(in: attributeValues, info: info)
        if kind == .content, categories.isEmpty {
            throw AppManifestError(
                .missingKey, file: info.file,
                "\(info.file.path): a content extension needs NSExtension › NSExtensionAttributes › UNNotificationExtensionCategory, the category identifier (or an array of them) whose notifications it draws"
            )
        }
        let attributes: [String: PropertyListValue]
        do {
            attributes = try PropertyListValue.dictionary(fromUserInfo: attributeValues)
        } catch {
            throw info.invalid("NSExtension › NSExtensionAttributes", "holds a value that is not a property-list value: \(error)")
        }
        return ExtensionManifest(
            bundleIdentifier: identifier, kind: kind, bundleDirectory: bundle,
            executable: try info.executable(executableDirectory: executableDirectory),
            principalClass: principalClass, categories: categories, attributes: attributes
        )
    }

    /// `UNNotificationExtensionCategory` as a string or an array of strings, duplicates dropped.
    private static func categories(in attributes: [String: Any], info: BundleInfoPlist) throws(AppManifestError) -> [String] {
        let key = "NSExtension › NSExtensionAttributes › UNNotificationExtensionCategory"
        switch attributes["UNNotificationExtensionCategory"] {
        case nil:
            return []
        case let category as String:
            guard !category.isEmpty else {
                throw info.invalid(key, "is empty; name the category identifier whose notifications the extension handles")
            }
            return [category]
        case let array as [Any]:
            var categories: [String] = []
            for element in array {
                guard let category = element as? String, !category.isEmpty else {
                    throw info.invalid(key, "must be a category identifier or an array of them; one element is \(BundleInfoPlist.describe(element))")
                }
                if !categories.contains(category) { categories.append(category) }
            }
            return categories
        case let other?:
            throw info.invalid(key, "must be a category identifier or an array of them, not \(BundleInfoPlist.describe(other))")
        }
    }
}
