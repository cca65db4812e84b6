import ArgumentParser
import Foundation
import HeraldGateway
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

@testable import HeraldCLI

/// `herald serve`'s settings from flags, `HERALD_*` variables and a `--config` file, in that precedence.
@Suite struct ServeSettingsTests {
    /// `herald serve ARGUMENTS` parsed and checked as the command line is, in a process whose environment is
    /// `environment`.
    static func settings(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> ServeSettings {
        try Serve.$environmentVariables.withValue(environment) {
            let serve = try #require(try HeraldCommand.parseAsRoot(["serve"] + arguments) as? Serve)
            return try serve.settings()
        }
    }

    /// The message a person sees for `herald serve ARGUMENTS` with `environment`; empty when nothing is wrong.
    static func problem(_ arguments: [String] = [], environment: [String: String] = [:]) -> String {
        do {
            _ = try settings(arguments, environment: environment)
            return ""
        } catch {
            return HeraldCommand.message(for: error)
        }
    }

    /// A configuration file holding `json`.
    static func file(_ json: String) throws -> String {
        let path = TemporaryPath.make("herald-config", suffix: ".json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func withNothingGivenEverySettingIsItsBuiltInDefault() throws {
        let settings = try Self.settings()
        var expected = ServeSettings()
        expected.hostName = ProcessInfo.processInfo.hostName
        #expect(settings == expected)
        #expect(settings.dataDirectory == DataDirectory.defaultPath)
        #expect(settings.providerPort == 2197 && settings.devicePort == 5223 && settings.consolePort == 8080)
        #expect(settings.host == "127.0.0.1" && settings.consoleHost == "127.0.0.1")
        #expect(!settings.plaintext && !settings.quiet && settings.environment == .development && settings.store == "sqlite")
        #expect(settings.tlsCertificate == nil && settings.tlsKey == nil && settings.configFile == nil)
        #expect(settings.idleTimeout == 3600 && settings.deviceRateLimit == 2000)
        #expect(settings.nodeName == "\(ProcessInfo.processInfo.hostName):2197")
        #expect(ServeSettingKey.allCases.allSatisfy { settings.origin(of: $0) == .builtInDefault })
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws {
        let config = try Self.file(#"{"provider-port": 3000, "host": "10.0.0.1", "device-port": 3001}"#)
        let environment = ["HERALD_CONFIG": config, "HERALD_PROVIDER_PORT": "4000", "HERALD_HOST": "10.0.0.2"]
        let settings = try Self.settings(["--provider-port", "5000"], environment: environment)
        #expect(settings.providerPort == 5000 && settings.origin(of: .providerPort) == .flag)
        #expect(settings.host == "10.0.0.2" && settings.origin(of: .host) == .environment)
        #expect(settings.devicePort == 3001 && settings.origin(of: .devicePort) == .file(config))
        #expect(settings.consolePort == 8080 && settings.origin(of: .consolePort) == .builtInDefault)
        #expect(settings.configFile == config && settings.origin(of: .config) == .environment)
        #expect(settings.nodeName == "\(ProcessInfo.processInfo.hostName):5000", "the default node name follows the provider port")
    }

    /// A value set in the file or the environment can be turned back off by a flag.
    @Test func flagsTurnOffWhatTheFileTurnsOn() throws {
        let config = try Self.file(#"{"plaintext": true, "quiet": true}"#)
        let fromFile = try Self.settings(["--config", config])
        #expect(fromFile.plaintext && fromFile.quiet)
        let overridden = try Self.settings(["--config", config, "--no-plaintext", "--no-quiet"], environment: ["HERALD_QUIET": "yes"])
        #expect(!overridden.plaintext && !overridden.quiet)
        #expect(overridden.origin(of: .plaintext) == .flag && overridden.origin(of: .quiet) == .flag)
    }

    /// One sample value per setting, as a flag, an environment variable and a JSON value; `shown` is how
    /// `--print-config` prints it.
    struct Sample: Sendable, CustomTestStringConvertible {
        var key: String
        var flag: [String]
        var variable: String
        var json: String
        var shown: String
        var testDescription: String { key }
    }

    static let samples: [Sample] = [
        Sample(key: "data-dir", flag: ["--data-dir", "/srv/herald"], variable: "/srv/herald", json: #""/srv/herald""#, shown: "/srv/herald"),
        Sample(key: "host", flag: ["--host", "0.0.0.0"], variable: "0.0.0.0", json: #""0.0.0.0""#, shown: "0.0.0.0"),
        Sample(key: "console-host", flag: ["--console-host", "::"], variable: "::", json: #""::""#, shown: "::"),
        Sample(key: "provider-port", flag: ["--provider-port", "443"], variable: "443", json: "443", shown: "443"),
        Sample(key: "device-port", flag: ["--device-port", "8443"], variable: "8443", json: "8443", shown: "8443"),
        Sample(key: "console-port", flag: ["--console-port", "9090"], variable: "9090", json: "9090", shown: "9090"),
        Sample(key: "plaintext", flag: ["--plaintext"], variable: "true", json: "true", shown: "true"),
        Sample(key: "environment", flag: ["--environment", "production"], variable: "production", json: #""production""#, shown: "production"),
        Sample(key: "store", flag: ["--store", "/srv/h.sqlite"], variable: "/srv/h.sqlite", json: #""/srv/h.sqlite""#, shown: "/srv/h.sqlite"),
        Sample(key: "idle-timeout", flag: ["--idle-timeout", "60"], variable: "60", json: "60", shown: "60"),
        Sample(key: "device-rate-limit", flag: ["--device-rate-limit", "12.5"], variable: "12.5", json: "12.5", shown: "12.5"),
        Sample(key: "quiet", flag: ["--quiet"], variable: "1", json: "true", shown: "true"),
        Sample(key: "node-name", flag: ["--node-name", "gw-a"], variable: "gw-a", json: #""gw-a""#, shown: "gw-a"),
    ]

    @Test(arguments: samples) func everySettingComesFromEachPlace(_ sample: Sample) throws {
        let key = try #require(ServeSettingKey(rawValue: sample.key))
        let fromFlag = try Self.settings(sample.flag)
        let fromEnvironment = try Self.settings(environment: [key.environmentVariable: sample.variable])
        let config = try Self.file(#"{"\#(sample.key)": \#(sample.json)}"#)
        let fromFile = try Self.settings(["--config", config])
        for (settings, origin) in [(fromFlag, ServeSettingOrigin.flag), (fromEnvironment, .environment), (fromFile, .file(config))] {
            #expect(settings.displayValue(of: key) == sample.shown)
            #expect(settings.origin(of: key) == origin)
        }
    }

    @Test func theTLSCertificateAndKeyComeFromEachPlaceTogether() throws {
        let config = try Self.file(#"{"tls-cert": "/etc/herald/cert.pem", "tls-key": "/etc/herald/key.pem"}"#)
        let fromFile = try Self.settings(["--config", config])
        #expect(fromFile.tlsCertificate == "/etc/herald/cert.pem" && fromFile.tlsKey == "/etc/herald/key.pem")
        let mixed = try Self.settings(["--tls-cert", "/a.pem"], environment: ["HERALD_TLS_KEY": "/a.key"])
        #expect(mixed.tlsCertificate == "/a.pem" && mixed.origin(of: .tlsCertificate) == .flag)
        #expect(mixed.tlsKey == "/a.key" && mixed.origin(of: .tlsKey) == .environment)
        let configuration = mixed.gatewayConfiguration
        #expect(configuration.tlsCertificatePath == "/a.pem" && configuration.tlsKeyPath == "/a.key")
    }

    /// A systemd EnvironmentFile often has `HERALD_X=` for "not set".
    @Test func anEmptyVariableIsUnsetAndNullInTheFileIsUnset() throws {
        let config = try Self.file(#"{"host": null, "provider-port": 3000}"#)
        let settings = try Self.settings(["--config", config], environment: ["HERALD_PROVIDER_PORT": "", "HERALD_HOST": ""])
        #expect(settings.host == "127.0.0.1" && settings.origin(of: .host) == .builtInDefault)
        #expect(settings.providerPort == 3000 && settings.origin(of: .providerPort) == .file(config))
    }

    @Test func aValueOfTheWrongTypeOrOutOfRangeNamesItsSource() throws {
        #expect(Self.problem(environment: ["HERALD_PROVIDER_PORT": "abc"]) == "HERALD_PROVIDER_PORT must be a port from 0 to 65535, not abc")
        #expect(Self.problem(environment: ["HERALD_CONSOLE_PORT": "70000"]) == "HERALD_CONSOLE_PORT must be a port from 0 to 65535, not 70000")
        #expect(Self.problem(environment: ["HERALD_PLAINTEXT": "maybe"]) == "HERALD_PLAINTEXT must be true or false, not maybe")
        #expect(Self.problem(environment: ["HERALD_ENVIRONMENT": "staging"]) == "HERALD_ENVIRONMENT must be development or production, not staging")
        #expect(Self.problem(environment: ["HERALD_IDLE_TIMEOUT": "0"]) == "HERALD_IDLE_TIMEOUT must be a number of seconds, at least 1, not 0")
        #expect(
            Self.problem(environment: ["HERALD_DEVICE_RATE_LIMIT": "-5"])
                == "HERALD_DEVICE_RATE_LIMIT must be a number of notifications per second above 0, not -5")
        #expect(Self.problem(environment: ["HERALD_DEVICE_RATE_LIMIT": "nan"]).hasPrefix("HERALD_DEVICE_RATE_LIMIT must be a number"))
        #expect(Self.problem(environment: ["HERALD_NODE_NAME": "node a"]).hasPrefix("HERALD_NODE_NAME must be a name of 1 to 255 characters"))

        let config = try Self.file(#"{"provider-port": "2197", "device-port": 99999}"#)
        #expect(Self.problem(["--config", config]) == #"provider-port in \#(config) must be a port from 0 to 65535, not "2197""#)
        let outOfRange = try Self.file(#"{"device-port": 99999}"#)
        #expect(Self.problem(["--config", outOfRange]) == "device-port in \(outOfRange) must be a port from 0 to 65535, not 99999")
        let booleanPort = try Self.file(#"{"console-port": true}"#)
        #expect(Self.problem(["--config", booleanPort]) == "console-port in \(booleanPort) must be a port from 0 to 65535, not true")
        let numberFlag = try Self.file(#"{"plaintext": 1}"#)
        #expect(Self.problem(["--config", numberFlag]) == "plaintext in \(numberFlag) must be true or false, not 1")
        let fractionalPort = try Self.file(#"{"provider-port": 2197.5}"#)
        #expect(Self.problem(["--config", fractionalPort]).hasPrefix("provider-port in \(fractionalPort) must be a port"))
    }

    /// The checks the flags always had, now for every source.
    @Test func theFlagsChecksStand() throws {
        #expect(Self.problem(["--provider-port", "70000"]) == "--provider-port must be a port from 0 to 65535, not 70000")
        #expect(Self.problem(["--idle-timeout", "0"]) == "--idle-timeout must be a number of seconds, at least 1, not 0")
        #expect(Self.problem(["--device-rate-limit", "0"]) == "--device-rate-limit must be a number of notifications per second above 0, not 0")
        #expect(Self.problem(["--tls-cert", "a.pem"]) == "--tls-cert and --tls-key go together; give both or neither")
        #expect(
            Self.problem(environment: ["HERALD_TLS_KEY": "a.key"])
                == "--tls-cert and --tls-key go together; give both or neither (HERALD_TLS_KEY gives one)")
        let config = try Self.file(#"{"tls-cert": "/a.pem"}"#)
        #expect(
            Self.problem(["--config", config]) == "--tls-cert and --tls-key go together; give both or neither (tls-cert in \(config) gives one)")
        // A PostgreSQL URL is read before the node starts; what is wrong is said, never the password.
        #expect(Self.problem(["--store", "postgres://localhost/herald"]).contains("has no user name"))
        let noDatabase = Self.problem(environment: ["HERALD_STORE": "postgres://u:secret@localhost"])
        #expect(noDatabase.contains("database"))
        #expect(!noDatabase.contains("secret"))
    }
}
