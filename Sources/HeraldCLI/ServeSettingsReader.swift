import ArgumentParser
import Configuration

/// The sources of ``ServeSettings`` in the order they win, each a swift-configuration provider, and where each
/// value read came from.
struct ServeSettingsReader {
    private struct Source {
        var origin: ServeSettingOrigin
        var provider: any ConfigProvider
    }

    private var sources: [Source]
    private let environment: [String: String]
    private(set) var origins: [ServeSettingKey: ServeSettingOrigin] = [:]

    init(flags: [ServeSettingKey: ConfigContent], environment: [String: String]) {
        let values = flags.map { key, content in (key.configKey, ConfigValue(content, isSecret: key == .store)) }
        self.environment = environment.filter { !$0.value.isEmpty }
        sources = [
            Source(origin: .flag, provider: InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: values))),
            // `provider-port` under the prefix `herald` is HERALD_PROVIDER_PORT.
            Source(
                origin: .environment,
                provider: EnvironmentVariablesProvider(
                    environmentVariables: self.environment, secretsSpecifier: .specific([ServeSettingKey.store.environmentVariable])
                ).prefixKeys(with: "herald")),
        ]
    }

    /// Adds the configuration file, after the flags and the environment.
    mutating func add(_ file: ServeConfigFile) {
        sources.append(Source(origin: .file(file.path), provider: file.provider))
    }

    /// The value of `key` from the first source that has it, as `accept` takes it; nil when no source has one.
    ///
    /// - Throws: `ValidationError` when the first value found is not of the key's type or `accept` refuses it.
    mutating func value<Value>(_ key: ServeSettingKey, _ accept: (ConfigContent) -> Value?) throws -> Value? {
        for source in sources {
            let found: ConfigValue?
            do {
                found = try source.provider.value(forKey: key.configKey, type: key.type).value
            } catch {
                // Only an environment variable's text can fail to read as the type: flags and the file are typed.
                throw Self.problem(key, source.origin, environment[key.environmentVariable] ?? "")
            }
            guard let found else { continue }
            guard let value = accept(found.content) else { throw Self.problem(key, source.origin, Self.text(found.content)) }
            origins[key] = source.origin
            return value
        }
        return nil
    }

    private static func problem(_ key: ServeSettingKey, _ origin: ServeSettingOrigin, _ text: String) -> ValidationError {
        let shown = key == .store ? ServeSettings.maskingPassword(in: text) : text
        return ValidationError("\(origin.subject(key)) must be \(key.requirement), not \(shown.isEmpty ? "empty" : shown)")
    }

    private static func text(_ content: ConfigContent) -> String {
        switch content {
        case .string(let string): string
        case .int(let int): String(int)
        case .double(let double): double == double.rounded() && abs(double) < 1e15 ? String(Int(double)) : String(double)
        case .bool(let bool): String(bool)
        default: String(describing: content)
        }
    }
}
