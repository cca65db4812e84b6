import Configuration
import Foundation
import HeraldStore
import HeraldTesting
import Testing

@testable import HeraldCLI

/// `herald serve --print-config`: the effective configuration, where each value came from, no password.
@Suite struct ServePrintConfigTests {
    @Test func passwordsInAStoreURLAreMasked() {
        #expect(
            ServeSettings.maskingPassword(in: "postgres://herald:s3cret@db.internal:5432/herald") == "postgres://herald:****@db.internal:5432/herald")
        #expect(ServeSettings.maskingPassword(in: "postgresql://herald:p/a@ss@db/herald") == "postgresql://herald:****@db/herald")
        #expect(
            ServeSettings.maskingPassword(in: "postgres://db/herald?user=herald&password=s3cret&sslmode=require")
                == "postgres://db/herald?user=herald&password=****&sslmode=require")
        #expect(ServeSettings.maskingPassword(in: "postgres://herald@db/herald") == "postgres://herald@db/herald")
        #expect(ServeSettings.maskingPassword(in: "sqlite") == "sqlite")
        #expect(ServeSettings.maskingPassword(in: "/var/lib/herald/herald.sqlite") == "/var/lib/herald/herald.sqlite")
    }

    @Test func theReportNamesEachValuesSourceAndMasksThePassword() throws {
        let config = try ServeSettingsTests.file(#"{"data-dir": "/srv/herald", "store": "postgres://herald:from-file@db/herald"}"#)
        let environment = [
            "HERALD_CONFIG": config, "HERALD_HOST": "0.0.0.0", "HERALD_STORE": "postgres://herald:s3cret@db/herald",
            "HERALD_PROVIDERPORT": "1", "HERALD_LOG_LEVEL": "debug",
        ]
        // Straight from the sources: `herald serve` itself refuses a postgres:// store until the PostgreSQL store is built.
        let settings = try ServeSettings(
            flags: [.providerPort: .int(443), .nodeName: .string("gw-a")], environment: environment, hostName: "gw")
        let lines = settings.report(environment: environment).split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        func row(_ name: String) -> [Substring] { lines.first { $0.first.map(String.init) == name } ?? [] }
        #expect(row("config") == ["config", Substring(config), "environment", "HERALD_CONFIG"])
        #expect(row("data-dir") == ["data-dir", "/srv/herald", "file", Substring(config)])
        #expect(row("host") == ["host", "0.0.0.0", "environment", "HERALD_HOST"])
        #expect(row("provider-port") == ["provider-port", "443", "flag", "--provider-port"])
        #expect(row("device-port") == ["device-port", "5223", "default"])
        #expect(row("store") == ["store", "postgres://herald:****@db/herald", "environment", "HERALD_STORE"])
        #expect(row("node-name") == ["node-name", "gw-a", "flag", "--node-name"])
        let text = settings.report(environment: environment)
        #expect(!text.contains("s3cret") && !text.contains("from-file"))
        #expect(text.contains("note: herald serve does not read HERALD_PROVIDERPORT (a misspelled setting?)"))
        #expect(!text.contains("HERALD_LOG_LEVEL"))
    }

    @Test func theDefaultNodeNameSaysHowItIsMade() throws {
        let settings = try ServeSettingsTests.settings(["--provider-port", "2200"])
        #expect(settings.report(environment: [:]).contains("node-name          \(ProcessInfo.processInfo.hostName):2200"))
        #expect(settings.report(environment: [:]).contains("default (host name:provider port)"))
    }

    /// As a person runs it: it prints, creates nothing and exits 0.
    @Test func printConfigPrintsAndExitsWithoutServing() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let config = try ServeSettingsTests.file(#"{"data-dir": "\#(data)", "console-port": 9999}"#)
        let result = try await CommandRunTests.run(
            ["serve", "--print-config", "--config", config], environment: ["HERALD_STORE": "postgres-free.sqlite", "HERALD_HOST": "0.0.0.0"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("console-port       9999"))
        #expect(result.output.contains("file \(config)"))
        #expect(result.output.contains("environment HERALD_HOST"))
        #expect(!FileManager.default.fileExists(atPath: data), "nothing is created")
    }
}

/// `herald serve --config FILE` as a process: the file's settings are the ones served.
@Suite struct ServeConfigProcessTests {
    @Test func serveRunsOnTheFilesSettings() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let config = try ServeSettingsTests.file(
            #"{"data-dir": "\#(data)", "provider-port": 0, "device-port": 0, "console-port": 0, "channels-port": 0, "plaintext": true}"#)
        let serve = try HeraldProcess.start(["serve", "--config", config])
        defer { serve.terminate() }
        #expect(await serve.waitForOutput(containing: "Or with curl"), "\(serve.errorOutput)")
        #expect(serve.output.contains("(HTTP/2, plaintext)"), "plaintext, as the file says")
        #expect(FileManager.default.fileExists(atPath: DataDirectory(path: data).storePath))
        serve.terminate()
        #expect(await serve.exitStatus() == 0)
    }

    @Test func aBadSettingStopsServeWithItsSource() async throws {
        let result = try await CommandRunTests.run(["serve", "--quiet"], environment: ["HERALD_PROVIDER_PORT": "abc"])
        #expect(result.status == 64)
        #expect(result.error.contains("Error: HERALD_PROVIDER_PORT must be a port from 0 to 65535, not abc"), "\(result.error)")
    }
}
