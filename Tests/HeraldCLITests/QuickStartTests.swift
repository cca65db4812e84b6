import Crypto
import Foundation
import HeraldPostgres
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import Testing

@testable import HeraldCLI

/// The demo key and device `herald serve` prints, on nodes that share one store.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct QuickStartTests {
    /// Each node used to save a demo key of its own under the same key id: the key the first node printed stopped
    /// working (403 InvalidProviderToken) once the second node started.
    @Test func nodesSharingAStorePrintOneDemoKeyAndDeviceThatTheStoreKnows() async throws {
        let database = try await PostgresTestDatabase.create()
        let logger = Logger(label: "quick-start-test") { _ in SwiftLogNoOpLogHandler() }
        let directories = [try TemporaryDirectory(), try TemporaryDirectory()]
        var starts: [QuickStart] = []
        for (index, directory) in directories.enumerated() {
            let store = try await PostgresStore(url: database.url, nodeID: "node-\(index)", logger: logger)
            starts.append(try await QuickStart.prepare(directory: DataDirectory(path: directory.url.path), store: store, environment: .development))
            await store.close()
        }
        // The first node again, as after a restart: it keeps what it had.
        let store = try await PostgresStore(url: database.url, nodeID: "node-0-again", logger: logger)
        starts.append(try await QuickStart.prepare(directory: DataDirectory(path: directories[0].url.path), store: store, environment: .development))

        let keys = try starts.map { try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: $0.keyPath, encoding: .utf8)) }
        #expect(Set(keys.map(\.pemRepresentation)).count == 1)
        #expect(Set(starts.map(\.deviceToken)).count == 1)
        let stored = try #require(try await store.key(teamID: QuickStart.teamID, keyID: starts[0].keyID))
        #expect(stored.publicKeyPEM == keys[0].publicKey.pemRepresentation)
        #expect(try await store.device(#require(DeviceToken(hex: starts[0].deviceToken))) != nil)
        await store.close()
        try await database.drop()
    }
}
