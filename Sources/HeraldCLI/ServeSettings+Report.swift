import Foundation
import HeraldWire

extension ServeSettings {
    /// The effective configuration as `herald serve --print-config` prints it: each setting, its value (a
    /// password in the store's URL masked) and where the value came from, in columns; then a note naming any
    /// `HERALD_*` variable of `environment` that `herald serve` does not read, the usual sign of a misspelled one.
    ///
    /// ```
    /// # herald serve: the effective configuration (a flag wins over HERALD_*, which wins over the file, …)
    /// config             /etc/herald/herald.json            environment HERALD_CONFIG
    /// data-dir           /var/lib/herald                    file /etc/herald/herald.json
    /// host               0.0.0.0                            environment HERALD_HOST
    /// store              postgres://herald:****@db/herald   environment HERALD_STORE
    /// ```
    func report(environment: [String: String]) -> String {
        let rows = ServeSettingKey.allCases.map { key in
            (
                key.name, displayValue(of: key),
                key == .nodeName && givenNodeName == nil ? "default (host name:provider port)" : origin(of: key).label(key)
            )
        }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let valueWidth = rows.map(\.1.count).max() ?? 0
        var lines = ["# herald serve: the effective configuration (a flag wins over HERALD_*, which wins over the file, which wins over the default)"]
        for (name, value, origin) in rows {
            lines.append(name.padding(to: nameWidth + 2) + value.padding(to: valueWidth + 2) + origin)
        }
        let read = Set(ServeSettingKey.allCases.map(\.environmentVariable) + [LogLevelSetting.variable])
        let unread = environment.keys.filter { $0.hasPrefix("HERALD_") && !read.contains($0) }.sorted()
        if !unread.isEmpty {
            lines.append("note: herald serve does not read \(unread.joined(separator: ", ")) (a misspelled setting?)")
        }
        return lines.joined(separator: "\n")
    }

    /// The value of `key` as a person reads it; `(none)` for an unset path.
    func displayValue(of key: ServeSettingKey) -> String {
        switch key {
        case .config: configFile ?? "(none)"
        case .dataDirectory: dataDirectory
        case .host: host
        case .consoleHost: consoleHost
        case .providerPort: String(providerPort)
        case .devicePort: String(devicePort)
        case .consolePort: String(consolePort)
        case .channelsPort: String(channelsPort)
        case .webPushPort: String(webPushPort)
        case .plaintext: String(plaintext)
        case .environment: environment.rawValue
        case .store: Self.maskingPassword(in: store)
        case .tlsCertificate: tlsCertificate ?? "(none: the local CA's)"
        case .tlsKey: tlsKey ?? "(none)"
        case .idleTimeout: String(idleTimeout)
        case .deviceRateLimit: deviceRateLimit == deviceRateLimit.rounded() ? String(Int(deviceRateLimit)) : String(deviceRateLimit)
        case .quiet: String(quiet)
        case .allowFaults: String(allowFaults)
        case .nodeName: nodeName
        }
    }

    /// `store` with its password replaced by `****`, for printing: the one in a URL's user information
    /// (`postgres://herald:****@db/herald`) and a `password=` query parameter. Anything else is returned as it is.
    static func maskingPassword(in store: String) -> String {
        guard let schemeEnd = store.range(of: "://")?.upperBound else { return store }
        let queryStart = store[schemeEnd...].firstIndex(of: "?") ?? store.endIndex
        var masked = String(store[..<queryStart])
        // The last @ before the query ends the user information, so a password holding an unescaped / or @ is
        // masked whole.
        if let at = store[schemeEnd..<queryStart].lastIndex(of: "@"), let colon = store[schemeEnd..<at].firstIndex(of: ":") {
            masked = store[...colon] + "****" + store[at..<queryStart]
        }
        guard queryStart < store.endIndex else { return masked }
        let parameters = store[store.index(after: queryStart)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            parameter.lowercased().hasPrefix("password=") ? "\(parameter.prefix { $0 != "=" })=****" : String(parameter)
        }
        return masked + "?" + parameters.joined(separator: "&")
    }
}

extension String {
    /// The string with spaces after it up to `width` characters.
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
