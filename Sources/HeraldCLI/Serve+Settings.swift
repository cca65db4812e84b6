import Configuration
import Foundation
import HeraldWire

extension Serve {
    /// The environment variables `herald serve` reads: the process's, unless a test runs the command with its own.
    @TaskLocal static var environmentVariables = ProcessInfo.processInfo.environment

    /// The settings this run uses: the flags given, then the `HERALD_*` variables of `environment`, then the
    /// `--config` file, then the defaults.
    ///
    /// - Throws: `ValidationError` naming a setting that is wrong and where it came from.
    func settings(environment: [String: String] = Serve.environmentVariables) throws -> ServeSettings {
        try ServeSettings(flags: flags, environment: environment, hostName: ProcessInfo.processInfo.hostName)
    }

    /// The settings given as flags.
    private var flags: [ServeSettingKey: ConfigContent] {
        var flags: [ServeSettingKey: ConfigContent] = [:]
        flags[.config] = configFile.map(ConfigContent.string)
        flags[.dataDirectory] = dataDirectory.map(ConfigContent.string)
        flags[.host] = host.map(ConfigContent.string)
        flags[.consoleHost] = consoleHost.map(ConfigContent.string)
        flags[.providerPort] = providerPort.map(ConfigContent.int)
        flags[.devicePort] = devicePort.map(ConfigContent.int)
        flags[.consolePort] = consolePort.map(ConfigContent.int)
        flags[.channelsPort] = channelsPort.map(ConfigContent.int)
        flags[.webPushPort] = webPushPort.map(ConfigContent.int)
        flags[.plaintext] = plaintext.map(ConfigContent.bool)
        flags[.environment] = environment.map { ConfigContent.string($0.rawValue) }
        flags[.store] = store.map(ConfigContent.string)
        flags[.tlsCertificate] = tlsCertificate.map(ConfigContent.string)
        flags[.tlsKey] = tlsKey.map(ConfigContent.string)
        flags[.idleTimeout] = idleTimeout.map(ConfigContent.int)
        flags[.deviceRateLimit] = deviceRateLimit.map(ConfigContent.double)
        flags[.quiet] = quiet.map(ConfigContent.bool)
        flags[.allowFaults] = allowFaults.map(ConfigContent.bool)
        flags[.nodeName] = nodeName.map(ConfigContent.string)
        return flags
    }
}
