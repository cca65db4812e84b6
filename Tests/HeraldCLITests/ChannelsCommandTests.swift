import Crypto
import Foundation
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import Testing

/// `herald channels` against a gateway's channel management port, as a provider's script uses it.
@Suite struct ChannelsCommandTests {
    @Test func aChannelIsCreatedListedShownAndDeletedFromTheCommandLine() async throws {
        let gateway = try await TestGateway.start()
        let keyPath = TemporaryPath.make("herald-channels", suffix: ".p8")
        try gateway.privateKey.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let base = [
            "--gateway", "https://localhost:\(gateway.gateway.channelsPort)", "--ca", gateway.caPath, "--p8", keyPath,
            "--key-id", TestGateway.keyID, "--team-id", TestGateway.teamID, "--bundle", TestGateway.topic,
        ]
        let created = try await CommandRunTests.run(["channels", "create"] + base + ["--storage-policy", "0"])
        #expect(created.status == 0, "\(created.error)")
        let id = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(base64Encoded: id)?.count == 16, "\(created.output)")

        let listed = try await CommandRunTests.run(["channels", "list"] + base)
        #expect(listed.output == id + "\n", "\(listed.error)")
        let shown = try await CommandRunTests.run(["channels", "show"] + base + ["--channel", id])
        #expect(shown.output.contains("message-storage-policy: 0 (no message stored)"), "\(shown.output) \(shown.error)")
        let deleted = try await CommandRunTests.run(["channels", "delete"] + base + ["--channel", id])
        #expect(deleted.status == 0 && deleted.output.contains("deleted \(id)"), "\(deleted.error)")

        let gone = try await CommandRunTests.run(["channels", "show"] + base + ["--channel", id])
        #expect(gone.status != 0)
        #expect(gone.error.contains("the channel management API answered 400 ChannelNotRegistered"), "\(gone.error)")
        let badPolicy = try await CommandRunTests.run(["channels", "create"] + base + ["--storage-policy", "2"])
        #expect(badPolicy.status != 0 && badPolicy.error.contains("--storage-policy is 0 (no message stored) or 1"), "\(badPolicy.error)")
        var schemeless = base
        schemeless[1] = "localhost:2195"
        let badURL = try await CommandRunTests.run(["channels", "list"] + schemeless)
        #expect(badURL.status != 0 && badURL.error.contains("--gateway must look like https://localhost:2195"), "\(badURL.error)")
        try await gateway.stop()
    }
}
