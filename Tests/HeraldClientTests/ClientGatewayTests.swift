import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldSpawn
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import ServiceLifecycle
import Testing

/// The client against a real Herald gateway over TLS and HTTP/2.
@Suite struct ClientGatewayTests {
    private func client(_ gateway: TestGateway, logger: Logger = ClientFixtures.silent, configure: (inout APNsClientConfiguration) -> Void = { _ in })
        throws -> APNsClient
    {
        try ClientFixtures.client(gateway.url, caPath: gateway.caPath, key: gateway.privateKey, logger: logger, configure: configure)
    }

    @Test func sendReturnsTheIDsAndTheGatewayStoresTheNotification() async throws {
        let gateway = try await TestGateway.start()
        let client = try client(gateway)
        let token = try #require(DeviceToken(hex: try await gateway.issueToken()))
        let result = try await client.send(
            .alert(bundleID: TestGateway.topic, alert: .init(title: "Hello", body: "From HeraldClient"), badge: 2, sound: .default),
            to: token
        )
        #expect(result.attempts == 1)
        let uniqueID = try #require(result.uniqueID)
        let stored = try #require(try await gateway.store.notification(id: uniqueID))
        let payload = try JSONValue.parse(stored.payload)
        #expect(payload["aps"]?["alert"]?["title"]?.stringValue == "Hello")
        #expect(payload["aps"]?["badge"]?.integerValue == 2)
        await client.shutdown()
        try await gateway.stop()
    }

    /// A broadcast goes to its channel on the provider port and comes back with its request id; a push that is not a
    /// Live Activity's is refused before sending.
    @Test func aBroadcastReachesItsChannel() async throws {
        let gateway = try await TestGateway.start()
        let client = try client(gateway)
        let channel = BroadcastChannel(bundleID: TestGateway.topic, environment: .development, storagePolicy: .noMessageStored, createdAt: Date())
        #expect(try await gateway.store.createChannel(channel, limit: 10))
        let update = APNsNotification.liveActivity(
            bundleID: TestGateway.topic, event: .update, contentState: .object(["score": .string("2-1")]), timestamp: Date())
        let result = try await client.broadcast(update, toChannel: channel.id)
        #expect(result.attempts == 1 && result.uniqueID != nil)
        #expect(try await gateway.store.deleteChannel(id: channel.id, at: Date()))
        let gone = await #expect(throws: APNsClientError.self) { try await client.broadcast(update, toChannel: channel.id) }
        #expect(gone?.status == 400 && gone?.reason == .channelNotRegistered)
        let refused = await #expect(throws: APNsClientError.self) {
            try await client.broadcast(.alert(bundleID: TestGateway.topic, alert: .init(body: "x")), toChannel: channel.id)
        }
        #expect(refused?.code == .invalidRequest && refused?.reason == .invalidPushType)
        await client.shutdown()
        try await gateway.stop()
    }

    @Test func aRejectionCarriesTheReasonAndIsNotRetried() async throws {
        let gateway = try await TestGateway.start()
        let client = try client(gateway)
        let token = try #require(DeviceToken(hex: try await gateway.issueToken(topic: "com.example.other")))
        let error = try #require(
            await ClientFixtures.outcome(client, .alert(bundleID: TestGateway.topic, alert: .init(body: "x")), to: token).failure)
        #expect(error.code == .rejected)
        #expect(error.status == 400)
        #expect(error.reason == .deviceTokenNotForTopic)
        #expect(error.attempts == 1)
        await client.shutdown()
        try await gateway.stop()
    }

    @Test func manyConcurrentSendsShareTheConnections() async throws {
        let gateway = try await TestGateway.start()
        let client = try client(gateway) { $0.maximumConnections = 2 }
        let tokens = try await (0..<20).asyncMap { _ in try #require(DeviceToken(hex: try await gateway.issueToken())) }
        let results = await withTaskGroup(of: Result<APNsSendResult, APNsClientError>.self) { group in
            for index in 0..<600 {
                group.addTask {
                    await ClientFixtures.outcome(client, .alert(bundleID: TestGateway.topic, alert: .init(body: "\(index)")), to: tokens[index % 20])
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.success != nil }, "\(results.compactMap(\.failure).prefix(3))")
        #expect(Set(results.compactMap { $0.success?.apnsID }).count == 600)
        #expect(client.openConnections <= 2)
        #expect(try await gateway.store.notificationCount() == 600)
        await client.shutdown()
        try await gateway.stop()
    }

    @Test func tasksOnTheClientsEventLoopsSendAndResumeThere() async throws {
        let gateway = try await TestGateway.start()
        let client = try client(gateway) { $0.maximumConnections = 2 }
        let tokens = try await (0..<20).asyncMap { _ in try #require(DeviceToken(hex: try await gateway.issueToken())) }
        let executors = client.taskExecutors
        #expect(!executors.isEmpty)
        let outcomes = await withTaskGroup(of: (Bool, Bool).self) { group in
            for index in 0..<200 {
                let executor = executors[index % executors.count]
                group.addTask(executorPreference: executor) {
                    let sent =
                        await ClientFixtures.outcome(
                            client, .alert(bundleID: TestGateway.topic, alert: .init(body: "\(index)")), to: tokens[index % 20]
                        ).success != nil
                    return (sent, executor.isCurrent)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0.0 })
        #expect(outcomes.allSatisfy { $0.1 }, "a send resumed off its task's event loop")
        #expect(client.openConnections <= 2)
        #expect(try await gateway.store.notificationCount() == 200)
        await client.shutdown()
        try await gateway.stop()
    }

    @Test func tooManyRequestsToOneDeviceIsRetriedWithBackOff() async throws {
        let gateway = try await TestGateway.start {
            $0.deviceTokenRatePerSecond = 1
            $0.deviceTokenBurst = 1
        }
        let client = try client(gateway) {
            $0.retryPolicy.maximumAttempts = 60
            $0.retryPolicy.initialBackoff = .milliseconds(50)
            $0.retryPolicy.maximumBackoff = .milliseconds(300)
            $0.requestTimeout = .seconds(20)
        }
        let token = try #require(DeviceToken(hex: try await gateway.issueToken()))
        let notification = APNsNotification.alert(bundleID: TestGateway.topic, alert: .init(body: "x"))
        // Three at once to a device that takes one a second: the second and third cannot both get through at once.
        let results = await withTaskGroup(of: Result<APNsSendResult, APNsClientError>.self) { group in
            for _ in 0..<3 { group.addTask { await ClientFixtures.outcome(client, notification, to: token) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.success != nil }, "\(results.compactMap(\.failure))")
        #expect(results.contains { ($0.success?.attempts ?? 0) > 1 })
        await client.shutdown()
        try await gateway.stop()
    }

    @Test func certificateAuthenticationWithPEMAndPKCS12() async throws {
        let gateway = try await TestGateway.start()
        let token = try #require(DeviceToken(hex: try await gateway.issueToken()))
        let pem = try gateway.clientCertificate(topics: [TestGateway.topic])
        let notification = APNsNotification.alert(bundleID: TestGateway.topic, alert: .init(body: "by certificate"))
        let pkcs12 = try await makePKCS12(pem, passphrase: "secret")
        for authentication in [
            try APNsAuthentication.certificate(pemFile: pem.certificatePath, keyFile: pem.keyPath),
            try APNsAuthentication.certificate(pkcs12File: pkcs12, passphrase: "secret"),
        ] {
            var configuration = APNsClientConfiguration(endpoint: try .custom(gateway.url), authentication: authentication)
            configuration.trustRootsPath = gateway.caPath
            // Certificates, not timing: a loaded parallel run took the first answer past the default 10 s.
            configuration.requestTimeout = .seconds(60)
            let client = try APNsClient(configuration: configuration, logger: ClientFixtures.silent)
            #expect(try await client.send(notification, to: token).uniqueID != nil)
            await client.shutdown()
        }
        #expect(throws: APNsClientError.self) {
            try APNsAuthentication.certificate(pkcs12File: pem.certificatePath, passphrase: "secret")
        }
        #expect(throws: APNsClientError.self) {
            try APNsAuthentication.certificate(pkcs12File: pkcs12, passphrase: "wrong")
        }
        try await gateway.stop()
    }

    @Test func logsNeverShowTokensOrJWTs() async throws {
        let gateway = try await TestGateway.start()
        let capture = LogCapture()
        let client = try client(gateway, logger: capture.logger()) { $0.retryPolicy.maximumAttempts = 2 }
        let token = try #require(DeviceToken(hex: try await gateway.issueToken()))
        _ = try await client.send(.alert(bundleID: TestGateway.topic, alert: .init(body: "x")), to: token)
        _ = await ClientFixtures.outcome(client, .alert(bundleID: TestGateway.topic, alert: .init(body: "x")), to: .random())
        await client.shutdown()
        try await gateway.stop()
        let jwt = try #require(client.tokens?.token().jwt)
        #expect(!capture.text.isEmpty)
        #expect(!capture.text.contains(jwt))
        #expect(!capture.text.contains(String(jwt.split(separator: ".")[2])))
        #expect(!capture.text.contains(token.hex))
    }

    @Test func runsAsAServiceAndShutsDownGracefully() async throws {
        let gateway = try await TestGateway.start()
        let client = try client(gateway)
        let token = try #require(DeviceToken(hex: try await gateway.issueToken()))
        let group = ServiceGroup(services: [client], logger: ClientFixtures.silent)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try await client.send(.alert(bundleID: TestGateway.topic, alert: .init(body: "x")), to: token).attempts == 1)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let error = try #require(await ClientFixtures.outcome(client, to: token).failure)
        #expect(error.code == .shutdown)
        try await gateway.stop()
    }

    @Test func aGatewayShutdownIsSeenAsGoAwayAndReportedPerRequest() async throws {
        let gateway = try await TestGateway.start()
        let client = try client(gateway) { $0.retryPolicy.maximumAttempts = 2 }
        let token = try #require(DeviceToken(hex: try await gateway.issueToken()))
        #expect(try await client.send(.alert(bundleID: TestGateway.topic, alert: .init(body: "x")), to: token).attempts == 1)
        try await gateway.stop()
        let error = try #require(
            await ClientFixtures.outcome(client, .alert(bundleID: TestGateway.topic, alert: .init(body: "x")), to: token).failure)
        #expect(error.code == .connectionFailed)
        #expect(error.attempts == 2)
        await client.shutdown()
    }

    /// `openssl pkcs12 -export`, run without blocking the cooperative pool.
    private func makePKCS12(_ pem: (certificatePath: String, keyPath: String), passphrase: String) async throws -> String {
        let output = pem.certificatePath + ".p12"
        let process = try ChildProcess.launch(
            "/usr/bin/openssl",
            arguments: ["pkcs12", "-export", "-in", pem.certificatePath, "-inkey", pem.keyPath, "-out", output, "-passout", "pass:\(passphrase)"]
        )
        #expect(await process.terminated() == .exited(0))
        return output
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
