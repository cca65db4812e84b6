package import Foundation

/// An app's `Localizable.strings`, for resolving the `loc-key`s of remote notifications.
///
/// Read from the app bundle: the `.lproj` of the first preferred language the bundle has, then `Base.lproj`,
/// then `en.lproj` — a key missing from the first table is looked up in the next. Files may be in the
/// OpenStep strings format (`"KEY" = "value";`, with `/* */` and `//` comments) or compiled to a binary or
/// XML property list, in UTF-8 or UTF-16 (with a byte-order mark, or without one).
///
/// ```swift
/// let strings = LocalizedStrings(bundleDirectory: app.bundleDirectory, preferredLanguages: ["de-DE"])
/// strings.string(forKey: "NEW_EPISODE")  // from de.lproj, Base.lproj or en.lproj
/// ```
package struct LocalizedStrings: Sendable {
    private let table: [String: String]
    /// The `.lproj` directories read, most preferred first (like `["de", "Base", "en"]`).
    package let localizations: [String]
    /// Strings files that exist but could not be read, with the reason; their keys show as themselves.
    package let problems: [String]

    /// Reads `Localizable.strings` of the bundle at `bundleDirectory` for `preferredLanguages` (BCP 47
    /// tags like `pt-BR`; `pt_BR.lproj`, `pt-BR.lproj` and `pt.lproj` all match, case aside).
    package init(bundleDirectory: URL, preferredLanguages: [String] = Locale.preferredLanguages) {
        let available =
            (try? FileManager.default.contentsOfDirectory(atPath: bundleDirectory.path))?
            .filter { $0.hasSuffix(".lproj") }.map { String($0.dropLast(".lproj".count)) } ?? []
        let tableExists = { (name: String) in
            FileManager.default.fileExists(atPath: Self.tablePath(bundleDirectory, name).path)
        }
        var chosen: [String] = []
        if let language = Self.bestMatch(preferredLanguages, among: available.filter(tableExists)) {
            chosen.append(language)
        }
        for fallback in ["Base", "en"] where !chosen.contains(fallback) && available.contains(fallback) && tableExists(fallback) {
            chosen.append(fallback)
        }
        var table: [String: String] = [:]
        var problems: [String] = []
        for name in chosen.reversed() {  // the most preferred table is read last and wins
            let file = Self.tablePath(bundleDirectory, name)
            do {
                table.merge(try Self.parse(Data(contentsOf: file)), uniquingKeysWith: { $1 })
            } catch {
                problems.append("\(file.path): \(error)")
            }
        }
        self.table = table
        localizations = chosen
        self.problems = problems.reversed()
    }

    /// Strings from a table, for tests.
    package init(table: [String: String]) {
        self.table = table
        localizations = []
        problems = []
    }

    /// The string for `key`; nil when no table has it.
    package func string(forKey key: String) -> String? {
        table[key]
    }

    private static func tablePath(_ bundle: URL, _ localization: String) -> URL {
        bundle.appendingPathComponent("\(localization).lproj", isDirectory: true)
            .appendingPathComponent("Localizable.strings", isDirectory: false)
    }

    /// The localization for the first preferred language that has one: the whole tag, then the tag with its
    /// last subtag dropped, and so on (`zh-Hans-CN`, `zh-Hans`, `zh`).
    static func bestMatch(_ preferredLanguages: [String], among available: [String]) -> String? {
        let normalize = { (tag: String) in tag.replacingOccurrences(of: "_", with: "-").lowercased() }
        let byTag = Dictionary(available.map { (normalize($0), $0) }, uniquingKeysWith: { first, _ in first })
        for language in preferredLanguages {
            var subtags = normalize(language).split(separator: "-").map(String.init)
            while !subtags.isEmpty {
                if let match = byTag[subtags.joined(separator: "-")], match != "Base" { return match }
                subtags.removeLast()
            }
        }
        return nil
    }
}
