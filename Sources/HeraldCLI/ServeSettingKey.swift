import Configuration

/// One `herald serve` setting, spelled one way in each place it can be set: the flag `--provider-port`, the
/// environment variable `HERALD_PROVIDER_PORT` and the key `"provider-port"` of the configuration file.
struct ServeSettingKey: Hashable, Sendable, CustomStringConvertible {
    /// The flag without its dashes; the configuration file's key.
    let name: String
    /// What the value is: the file must hold a JSON value of this type, and the environment variable's text must
    /// read as one.
    let type: ConfigType
    /// What a value must be, for a message that says it: "a port from 0 to 65535".
    let requirement: String

    var description: String { name }
    var flag: String { "--\(name)" }
    /// `HERALD_` and the name in capitals, with underscores for dashes, as swift-configuration encodes the key
    /// ``configKey`` under the prefix `herald`.
    var environmentVariable: String { "HERALD_" + name.uppercased().replacing("-", with: "_") }
    var configKey: AbsoluteConfigKey { AbsoluteConfigKey([name]) }

    /// The configuration file itself: a flag or an environment variable, not a key of the file.
    static let config = Self(name: "config", type: .string, requirement: "the path of a JSON configuration file")
    static let dataDirectory = Self(name: "data-dir", type: .string, requirement: "a directory")
    static let host = Self(name: "host", type: .string, requirement: "an address to listen on")
    static let consoleHost = Self(name: "console-host", type: .string, requirement: "an address to listen on")
    static let providerPort = Self(name: "provider-port", type: .int, requirement: "a port from 0 to 65535")
    static let devicePort = Self(name: "device-port", type: .int, requirement: "a port from 0 to 65535")
    static let consolePort = Self(name: "console-port", type: .int, requirement: "a port from 0 to 65535")
    static let plaintext = Self(name: "plaintext", type: .bool, requirement: "true or false")
    static let environment = Self(name: "environment", type: .string, requirement: "development or production")
    static let store = Self(name: "store", type: .string, requirement: "sqlite, a path to a SQLite file or a postgres:// URL")
    static let tlsCertificate = Self(name: "tls-cert", type: .string, requirement: "the path of a PEM certificate")
    static let tlsKey = Self(name: "tls-key", type: .string, requirement: "the path of a PEM private key")
    static let idleTimeout = Self(name: "idle-timeout", type: .int, requirement: "a number of seconds, at least 1")
    static let deviceRateLimit = Self(name: "device-rate-limit", type: .double, requirement: "a number of notifications per second above 0")
    static let quiet = Self(name: "quiet", type: .bool, requirement: "true or false")
    static let nodeName = Self(
        name: "node-name", type: .string, requirement: "a name of 1 to 255 characters without spaces or control characters")

    /// Every setting a configuration file may hold, in the order `--print-config` lists them.
    static let fileKeys: [Self] = [
        .dataDirectory, .host, .consoleHost, .providerPort, .devicePort, .consolePort, .plaintext, .environment, .store,
        .tlsCertificate, .tlsKey, .idleTimeout, .deviceRateLimit, .quiet, .nodeName,
    ]

    /// Every setting: the configuration file, then what it may hold.
    static let all: [Self] = [.config] + fileKeys
}

extension ServeSettingKey {
    /// The file key `name` is most likely a typo of: the same words spelled another way (`provider_port`,
    /// `providerPort`, `Provider-Port`), else one at most two edits away (`hots`), else one `name` begins with
    /// or that begins with `name` (`tls-certificate`); nil when none is that close.
    static func closest(to name: String) -> Self? {
        let words = Self.words(name)
        if let sameWords = fileKeys.first(where: { $0.name == words }) { return sameWords }
        let (distance, key) = fileKeys.map { (editDistance(Array(words), Array($0.name)), $0) }.min { $0.0 < $1.0 }!
        if distance <= 2 { return key }
        return fileKeys.first { key in
            min(key.name.count, words.count) >= 4 && (words.hasPrefix(key.name) || key.name.hasPrefix(words))
        }
    }

    /// `name` lowercased with dashes between words: `providerPort` and `PROVIDER_PORT` become `provider-port`.
    private static func words(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character == "_" || character == " " || character == "." {
                result.append("-")
            } else {
                if character.isUppercase, previous?.isLowercase == true { result.append("-") }
                result.append(contentsOf: character.lowercased())
            }
            previous = character
        }
        return result
    }

    /// Levenshtein distance: the insertions, deletions and substitutions that turn `a` into `b`.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previousRow = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var row = [i + 1]
            for (j, right) in b.enumerated() {
                row.append(Swift.min(previousRow[j + 1] + 1, row[j] + 1, previousRow[j] + (left == right ? 0 : 1)))
            }
            previousRow = row
        }
        return previousRow[b.count]
    }
}
