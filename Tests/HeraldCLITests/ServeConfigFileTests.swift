import Foundation
import HeraldTesting
import Testing

@testable import HeraldCLI

/// A `--config` file that cannot be used is refused in words naming the file and what is wrong with it.
@Suite struct ServeConfigFileTests {
    private func problem(_ json: String) throws -> (path: String, message: String) {
        let path = try ServeSettingsTests.file(json)
        return (path, ServeSettingsTests.problem(["--config", path]))
    }

    @Test func aMissingFileIsNamed() {
        let path = TemporaryPath.make("herald-config", suffix: ".json")
        #expect(ServeSettingsTests.problem(["--config", path]) == "cannot read the configuration file \(path): no such file")
        #expect(
            ServeSettingsTests.problem(environment: ["HERALD_CONFIG": path]) == "cannot read the configuration file \(path): no such file")
    }

    @Test func aDirectoryIsNotAFile() throws {
        let path = TemporaryPath.make("herald-config")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(
            ServeSettingsTests.problem(["--config", path]) == "cannot read the configuration file \(path): it is a directory, not a file")
    }

    /// Root reads every file: run as root, the check runs in the built `herald` as the user nobody.
    @Test func anUnreadableFileIsNamed() async throws {
        let path = try ServeSettingsTests.file("{}")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        let expected = "cannot read the configuration file \(path): permission denied to the user herald runs as"
        guard getuid() == 0 else {
            #expect(ServeSettingsTests.problem(["--config", path]) == expected)
            return
        }
        let asNobody = try HeraldProcess.start(
            ["-u", "nobody", "--", HeraldProcess.binary.path, "serve", "--print-config", "--config", path],
            executable: URL(fileURLWithPath: "/usr/sbin/runuser"))
        #expect(await asNobody.exitStatus() == 64)
        #expect(asNobody.errorOutput.contains("Error: \(expected)"), "\(asNobody.errorOutput)")
    }

    @Test func textThatIsNotJSONIsPlacedByLineAndColumn() throws {
        let (path, message) = try problem("{\n  \"host\": \"0.0.0.0\",\n  \"provider-port\": 2197,,\n}\n")
        #expect(message == "the configuration file \(path) is not valid JSON: line 3, column 25: unexpected ','")
        let (unterminated, unterminatedMessage) = try problem(#"{"host": "0.0.0.0""#)
        #expect(
            unterminatedMessage == "the configuration file \(unterminated) is not valid JSON: line 1, column 19: the file ends before the JSON does")
        let (trailingComma, trailingCommaMessage) = try problem("{\"host\": \"0.0.0.0\",\n}")
        #expect(trailingCommaMessage == "the configuration file \(trailingComma) is not valid JSON: line 2, column 1: unexpected '}'")
        let (empty, emptyMessage) = try problem("\n")
        #expect(emptyMessage == "the configuration file \(empty) is not valid JSON: the file is empty")
    }

    @Test func theFileHoldsOneObject() throws {
        let (path, message) = try problem(#"[{"host": "0.0.0.0"}]"#)
        #expect(message == #"the configuration file \#(path) must hold one JSON object, like {"host": "0.0.0.0"}, not an array"#)
    }

    @Test func anUnknownKeyIsNamedWithTheKeyItIsATypoOf() throws {
        let keys =
            "data-dir, host, console-host, provider-port, device-port, console-port, channels-port, webpush-port, plaintext, environment, allow-faults, store, tls-cert, tls-key, idle-timeout, device-rate-limit, quiet, node-name"
        let (path, message) = try problem(#"{"provider_port": 2197}"#)
        #expect(
            message == #"the configuration file \#(path) has an unknown key "provider_port" (did you mean "provider-port"?); the keys are \#(keys)"#)
        let (several, severalMessage) = try problem(#"{"hots": "0.0.0.0", "colour": "blue", "deviceRateLimit": 5}"#)
        #expect(
            severalMessage
                == #"the configuration file \#(several) has unknown keys "colour", "deviceRateLimit" (did you mean "device-rate-limit"?), "hots" (did you mean "host"?); the keys are \#(keys)"#
        )
        // The file cannot name another file; nested objects are not settings.
        let (nested, nestedMessage) = try problem(#"{"config": "/etc/other.json", "provider": {"port": 1}}"#)
        #expect(nestedMessage.hasPrefix(#"the configuration file \#(nested) has unknown keys "config", "provider""#))
    }

    @Test func typosFindTheirSetting() {
        #expect(ServeSettingKey.closest(to: "provider_port") == .providerPort)
        #expect(ServeSettingKey.closest(to: "providerPort") == .providerPort)
        #expect(ServeSettingKey.closest(to: "PROVIDER_PORT") == .providerPort)
        #expect(ServeSettingKey.closest(to: "tls-certificate") == .tlsCertificate)
        #expect(ServeSettingKey.closest(to: "tls-crt") == .tlsCertificate)
        #expect(ServeSettingKey.closest(to: "datadir") == .dataDirectory)
        #expect(ServeSettingKey.closest(to: "colour") == nil)
    }

    /// contrib/herald.json holds every key with its default: served as it is, it changes nothing.
    @Test func theExampleFileHoldsEveryKeyWithItsDefault() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let path = url.appendingPathComponent("contrib/herald.json").path
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        #expect(Set(document?.keys.map { $0 } ?? []) == Set(ServeSettingKey.fileKeys.map(\.name)))

        let settings = try ServeSettingsTests.settings(["--config", path])
        var expected = ServeSettings()
        expected.hostName = ProcessInfo.processInfo.hostName
        expected.configFile = path
        for key in ServeSettingKey.fileKeys {
            #expect(settings.displayValue(of: key) == expected.displayValue(of: key), "\(key)")
        }
    }
}
