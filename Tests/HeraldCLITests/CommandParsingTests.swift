import ArgumentParser
import HeraldWire
import Testing

@testable import HeraldCLI

/// CLI misuse gets a message a person can act on, before anything runs.
@Suite struct CommandParsingTests {
    private func message(_ arguments: [String]) -> String {
        do {
            _ = try HeraldCommand.parseAsRoot(arguments)
            return ""
        } catch {
            return HeraldCommand.message(for: error)
        }
    }

    @Test func noArgumentsMeansServeWithDefaults() throws {
        let command = try HeraldCommand.parseAsRoot([])
        let serve = try #require(command as? Serve)
        let settings = try serve.settings(environment: [:])
        #expect(settings.providerPort == 2197)
        #expect(settings.consolePort == 8080)
        #expect(settings.devicePort == 5223)
        #expect(settings.environment == .development)
        #expect(!settings.plaintext)
    }

    /// `serve` is the default command, but a first word that is no command must not become serve's: a typo says so.
    @Test(arguments: [
        (["sned", "--help"], "send"), (["devcie"], "device"), (["sever"], "serve"), (["key"], "keys"), (["bogus"], nil),
        (["x"], nil),
    ])
    func aFirstWordThatIsNoCommandIsRefusedWithTheClosestOne(arguments: [String], suggestion: String?) throws {
        #expect(throws: UnknownCommand.self) { try HeraldCommand.parse(arguments) }
        let unknown = try #require(UnknownCommand.find(in: arguments, commands: HeraldCommand.configuration.subcommands))
        #expect(unknown.suggestion == suggestion)
        let text = unknown.description
        #expect(text.hasPrefix("Error: unknown command '\(arguments[0])'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "") + "\n"))
        for command in ["serve", "keys", "tokens", "certs", "send", "jwt", "device", "policy", "apps", "console", "migrate"] {
            #expect(text.contains("\n  \(command) "), "\(command) is not listed")
        }
    }

    @Test(arguments: [[], ["--data-dir", "/tmp/x"], ["serve"], ["send", "--help"], ["help"], ["--help"], ["keys", "create", "--help"]])
    func commandsOptionsAndHelpAreNotUnknown(arguments: [String]) {
        #expect(UnknownCommand.find(in: arguments, commands: HeraldCommand.configuration.subcommands) == nil)
    }

    @Test func editDistanceCountsASwapOfNeighboursOnce() {
        #expect(UnknownCommand.editDistance("sned", "send") == 1)
        #expect(UnknownCommand.editDistance("send", "send") == 0)
        #expect(UnknownCommand.editDistance("", "jwt") == 3)
        #expect(UnknownCommand.editDistance("migrte", "migrate") == 1)
        #expect(UnknownCommand.editDistance("bogus", "keys") > 2)
    }

    @Test func serveTakesTheContractFlags() throws {
        let command = try HeraldCommand.parseAsRoot([
            "serve", "--data-dir", "/tmp/x", "--host", "0.0.0.0", "--provider-port", "1", "--device-port", "2",
            "--console-port", "3", "--plaintext", "--environment", "production", "--store", "sqlite",
        ])
        let serve = try #require(command as? Serve)
        let settings = try serve.settings(environment: [:])
        #expect(settings.dataDirectory == "/tmp/x")
        #expect(settings.host == "0.0.0.0")
        #expect(settings.providerPort == 1 && settings.devicePort == 2 && settings.consolePort == 3)
        #expect(settings.plaintext)
        #expect(settings.environment == .production)
        #expect(settings.store == "sqlite")
    }

    @Test func badInputIsExplained() {
        #expect(message(["serve", "--provider-port", "70000"]).contains("--provider-port must be a port from 0 to 65535"))
        #expect(message(["serve", "--environment", "staging"]).contains("staging"))
        #expect(message(["serve", "--store", "postgres://localhost/herald"]).contains("has no user name"))
        #expect(message(["serve", "--tls-cert", "a.pem"]).contains("--tls-cert and --tls-key go together"))
        #expect(
            message(["keys", "create", "--team-id", "TEAM", "--key-id", "KEY1234567", "--out", "k.p8"])
                .contains("--team-id must be 10 letters or digits, like TEAM123456"))
        #expect(
            message(["keys", "create", "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--topic", "com example", "--out", "k.p8"])
                .contains("is not a bundle id"))
        #expect(message(["tokens", "issue"]).contains("--topic"))
        #expect(message(["tokens", "issue", "--topic", "com.example.app", "--count", "0"]).contains("--count must be from 1 to 1000000, not 0"))
    }

    @Test func sendNeedsOneWayToAuthenticate() {
        let base = ["send", "--gateway", "https://localhost:2197", "--topic", "com.example.app", "--device", String(repeating: "ab", count: 32), "-"]
        #expect(
            message(base).contains("authenticate with --p8, --key-id and --team-id, or with --cert (and --cert-key unless the PEM file holds the key")
        )
        #expect(message(base + ["--p8", "k.p8", "--team-id", "TEAM123456"]).contains("needs all of --p8, --key-id and --team-id"))
        #expect(
            message(["send", "--gateway", "localhost:2197", "--topic", "t", "--device", "ab", "--cert", "c", "--cert-key", "k", "-"])
                .contains("--gateway must look like https://localhost:2197"))
        #expect(
            message(["send", "--gateway", "https://localhost", "--topic", "t", "--device", "zz", "--cert", "c", "--cert-key", "k", "-"])
                .contains("--device must be a device token in hex"))
    }
}
