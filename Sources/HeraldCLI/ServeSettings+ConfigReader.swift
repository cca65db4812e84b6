import ArgumentParser
import Configuration
import HeraldWire

extension ServeSettings {
    /// Reads every setting from its first source that has it: the flags, then the `HERALD_*` variables of
    /// `environment` (an empty one counts as unset), then the configuration file that `--config` or `HERALD_CONFIG`
    /// names, then the built-in default. Each value is checked where it was found, so a message names its source:
    /// `HERALD_PROVIDER_PORT must be a port from 0 to 65535, not abc`.
    ///
    /// - Parameters:
    ///   - flags: the settings given on the command line, as ArgumentParser parsed them.
    ///   - environment: the process's environment variables.
    ///   - hostName: the machine's name, for the default node name.
    /// - Throws: `ValidationError` naming the setting, where it came from and what it must be.
    init(flags: [ServeSettingKey: ConfigContent], environment: [String: String], hostName: String) throws {
        self.init()
        self.hostName = hostName
        var reader = ServeSettingsReader(flags: flags, environment: environment)
        configFile = try reader.value(.config, Self.nonEmpty)
        if let configFile { try reader.add(ServeConfigFile(path: configFile)) }

        dataDirectory = try reader.value(.dataDirectory, Self.nonEmpty) ?? dataDirectory
        host = try reader.value(.host, Self.nonEmpty) ?? host
        consoleHost = try reader.value(.consoleHost, Self.nonEmpty) ?? consoleHost
        providerPort = try reader.value(.providerPort, Self.port) ?? providerPort
        devicePort = try reader.value(.devicePort, Self.port) ?? devicePort
        consolePort = try reader.value(.consolePort, Self.port) ?? consolePort
        channelsPort = try reader.value(.channelsPort, Self.port) ?? channelsPort
        webPushPort = try reader.value(.webPushPort, Self.port) ?? webPushPort
        plaintext = try reader.value(.plaintext, \.bool) ?? plaintext
        self.environment = try reader.value(.environment) { $0.string.flatMap(APNsEnvironment.init(rawValue:)) } ?? self.environment
        store = try reader.value(.store, Self.nonEmpty) ?? store
        tlsCertificate = try reader.value(.tlsCertificate, Self.nonEmpty)
        tlsKey = try reader.value(.tlsKey, Self.nonEmpty)
        idleTimeout = try reader.value(.idleTimeout) { $0.int.flatMap { $0 >= 1 ? $0 : nil } } ?? idleTimeout
        deviceRateLimit = try reader.value(.deviceRateLimit) { $0.double.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } } ?? deviceRateLimit
        quiet = try reader.value(.quiet, \.bool) ?? quiet
        allowFaults = try reader.value(.allowFaults, \.bool) ?? allowFaults
        givenNodeName = try reader.value(.nodeName, Self.nodeName)
        origins = reader.origins

        if (tlsCertificate == nil) != (tlsKey == nil) {
            let given = tlsCertificate == nil ? ServeSettingKey.tlsKey : .tlsCertificate
            let source = origin(of: given) == .flag ? "" : " (\(origin(of: given).subject(given)) gives one)"
            throw ValidationError("--tls-cert and --tls-key go together; give both or neither\(source)")
        }
    }

    private static func nonEmpty(_ content: ConfigContent) -> String? {
        content.string.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func port(_ content: ConfigContent) -> Int? {
        content.int.flatMap { (0...65535).contains($0) ? $0 : nil }
    }

    /// A node name goes into logs, metrics and the store's node leases: printable, no spaces.
    private static func nodeName(_ content: ConfigContent) -> String? {
        guard let name = content.string, (1...255).contains(name.count) else { return nil }
        return name.unicodeScalars.allSatisfy { !$0.properties.isWhitespace && $0.properties.generalCategory != .control } ? name : nil
    }
}

/// A setting's value as the type its key asks for; nil for another type.
extension ConfigContent {
    var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    var int: Int? {
        if case .int(let int) = self { return int }
        return nil
    }

    var double: Double? {
        if case .double(let double) = self { return double }
        return nil
    }

    var bool: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }
}
