/// Where a `herald serve` setting's value came from. The cases are in the order they win: a flag over an
/// environment variable, over the configuration file, over the built-in default.
enum ServeSettingOrigin: Hashable, Sendable {
    case flag
    case environment
    /// The configuration file at this path.
    case file(String)
    case builtInDefault

    /// How a message names `key` where its value came from: `--provider-port`, `HERALD_PROVIDER_PORT`,
    /// `provider-port in /etc/herald/herald.json`.
    func subject(_ key: ServeSettingKey) -> String {
        switch self {
        case .flag, .builtInDefault: key.flag
        case .environment: key.environmentVariable
        case .file(let path): "\(key.name) in \(path)"
        }
    }

    /// The origin as `--print-config` shows it: `flag --host`, `environment HERALD_HOST`, `file PATH`, `default`.
    func label(_ key: ServeSettingKey) -> String {
        switch self {
        case .flag: "flag \(key.flag)"
        case .environment: "environment \(key.environmentVariable)"
        case .file(let path): "file \(path)"
        case .builtInDefault: "default"
        }
    }
}
