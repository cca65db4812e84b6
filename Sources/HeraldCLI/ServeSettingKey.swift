import Configuration

/// One `herald serve` setting, spelled one way in each place it can be set: the flag `--provider-port`, the
/// environment variable `HERALD_PROVIDER_PORT` and the key `"provider-port"` of the configuration file. The cases
/// are in the order `--print-config` lists them.
enum ServeSettingKey: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The configuration file itself: a flag or an environment variable, not a key of the file.
    case config
    case dataDirectory = "data-dir"
    case host
    case consoleHost = "console-host"
    case providerPort = "provider-port"
    case devicePort = "device-port"
    case consolePort = "console-port"
    case channelsPort = "channels-port"
    case webPushPort = "webpush-port"
    case plaintext
    case environment
    case allowFaults = "allow-faults"
    case store
    case tlsCertificate = "tls-cert"
    case tlsKey = "tls-key"
    case idleTimeout = "idle-timeout"
    case deviceRateLimit = "device-rate-limit"
    case quiet
    case nodeName = "node-name"

    /// Every setting a configuration file may hold.
    static let fileKeys = allCases.filter { $0 != .config }

    /// The flag without its dashes; the configuration file's key.
    var name: String { rawValue }
    var description: String { name }
    var flag: String { "--\(name)" }
    /// `HERALD_` and the name in capitals, with underscores for dashes, as swift-configuration encodes the key
    /// ``configKey`` under the prefix `herald`.
    var environmentVariable: String { "HERALD_" + name.uppercased().replacing("-", with: "_") }
    var configKey: AbsoluteConfigKey { AbsoluteConfigKey([name]) }

    /// What the value is: the file must hold a JSON value of this type, and the environment variable's text must
    /// read as one.
    var type: ConfigType {
        switch self {
        case .config, .dataDirectory, .host, .consoleHost, .environment, .store, .tlsCertificate, .tlsKey, .nodeName: .string
        case .providerPort, .devicePort, .consolePort, .channelsPort, .webPushPort, .idleTimeout: .int
        case .deviceRateLimit: .double
        case .plaintext, .quiet, .allowFaults: .bool
        }
    }

    /// What a value must be, for a message that says it: "a port from 0 to 65535".
    var requirement: String {
        switch self {
        case .config: "the path of a JSON configuration file"
        case .dataDirectory: "a directory"
        case .host, .consoleHost: "an address to listen on"
        case .providerPort, .devicePort, .consolePort, .channelsPort, .webPushPort: "a port from 0 to 65535"
        case .plaintext, .quiet, .allowFaults: "true or false"
        case .environment: "development or production"
        case .store: "sqlite, a path to a SQLite file or a postgres:// URL"
        case .tlsCertificate: "the path of a PEM certificate"
        case .tlsKey: "the path of a PEM private key"
        case .idleTimeout: "a number of seconds, at least 1"
        case .deviceRateLimit: "a number of notifications per second above 0"
        case .nodeName: "a name of 1 to 255 characters without spaces or control characters"
        }
    }
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
