import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import Testing

/// Delivery over real sockets: the provider API over HTTP/2 + TLS, devices over WebSocket + TLS.
@Suite struct DeviceDeliveryTests {
    private func push(
        _ gateway: TestGateway,
        to token: String,
        _ body: String = #"{"aps":{"alert":"hello"}}"#,
        change: (inout Push) -> Void = { _ in }
    ) async throws -> APNsResponse {
        var push = Push(token: token, jwt: gateway.defaultJWT)
        push.body = Data(body.utf8)
        change(&push)
        let connection = try await gateway.connect()
        let response = try await connection.send(push)
        await connection.close()
        return response
    }

    private func alert(_ text: String) -> String { #"{"aps":{"alert":"\#(text)"}}"# }

    private func text(of notification: LinkNotification) throws -> String? {
        try JSONValue.parse(notification.payload)["aps"]?["alert"]?.stringValue
    }

    @Test func onlineDeviceGetsTheNotificationAtOnceAndItIsLoggedDelivered() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        #expect(try await device.register(TestGateway.topic) == token)  // stable

        let response = try await push(gateway, to: token, #"{"aps":{"alert":"hi"},"extra":[1,2]}"#)
        #expect(response.status == 200)
        let notification = try await device.notification()
        #expect(APNsID.format(notification.apnsID) == response.apnsID)
        #expect(notification.deviceToken == token && notification.bundleID == TestGateway.topic)
        #expect(try JSONValue.parse(notification.payload) == JSONValue.parse(Data(#"{"aps":{"alert":"hi"},"extra":[1,2]}"#.utf8)))
        device.acknowledge(notification)

        let uniqueID = try #require(response.uniqueID.flatMap { APNsID.parse($0) })
        try await waitUntil { try await gateway.store.notification(id: uniqueID)?.delivery.state == .delivered }
        #expect(try await gateway.store.notification(id: uniqueID)?.delivery.storedAt == nil)
        await device.leave()
        try await gateway.stop()
    }

    @Test func offlineDeviceGetsOnlyTheLatestUnderAPNsPolicy() async throws {
        let gateway = try await TestGateway.start()
        let (device, token) = try await offlineDevice(gateway)

        for index in 1...3 { #expect(try await push(gateway, to: token, alert("n\(index)")).status == 200) }
        let back = try await TestDevice.connect(to: gateway, key: device.key)
        let only = try await back.notification()
        #expect(try text(of: only) == "n3")
        #expect(try await back.next(timeout: .milliseconds(300)) == nil)
        await back.leave()
        try await gateway.stop()
    }

    @Test func expirationZeroIsNotStoredForAnOfflineDevice() async throws {
        let gateway = try await TestGateway.start()
        let (device, token) = try await offlineDevice(gateway)

        let response = try await push(gateway, to: token, alert("now or never")) { $0.expiration = 0 }
        #expect(response.status == 200)
        let back = try await TestDevice.connect(to: gateway, key: device.key)
        #expect(try await back.next(timeout: .milliseconds(300)) == nil)
        let uniqueID = try #require(response.uniqueID.flatMap { APNsID.parse($0) })
        let logged = try await gateway.store.notification(id: uniqueID)
        #expect(logged?.delivery.discardReason == .expired)
        await back.leave()
        try await gateway.stop()
    }

    @Test func allPolicyKeepsEveryNotificationInOrder() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.store.setStoragePolicy(.all(cap: 100), bundleID: TestGateway.topic)
        let (device, token) = try await offlineDevice(gateway)

        for index in 1...20 { #expect(try await push(gateway, to: token, alert("n\(index)")).status == 200) }
        let back = try await TestDevice.connect(to: gateway, key: device.key)
        var texts: [String] = []
        for _ in 1...20 {
            let notification = try await back.notification()
            texts.append(try text(of: notification) ?? "")
            back.acknowledge(notification)
        }
        #expect(texts == (1...20).map { "n\($0)" })
        #expect(try await back.next(timeout: .milliseconds(300)) == nil)
        await back.leave()
        try await gateway.stop()
    }

    @Test func collapseIDReplacesTheStoredNotification() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.store.setStoragePolicy(.all(), bundleID: TestGateway.topic)
        let (device, token) = try await offlineDevice(gateway)

        #expect(try await push(gateway, to: token, alert("score 1-0")) { $0.collapseID = "match" }.status == 200)
        #expect(try await push(gateway, to: token, alert("other")).status == 200)
        #expect(try await push(gateway, to: token, alert("score 2-0")) { $0.collapseID = "match" }.status == 200)
        let back = try await TestDevice.connect(to: gateway, key: device.key)
        let first = try await back.notification()
        let second = try await back.notification()
        #expect(try text(of: first) == "other")
        #expect(try text(of: second) == "score 2-0")
        #expect(second.requestIdentifier == "match")
        #expect(try await back.next(timeout: .milliseconds(300)) == nil)
        await back.leave()
        try await gateway.stop()
    }

    @Test func unregisteredAppAnswers410WithATimestamp() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        #expect(try await push(gateway, to: token).status == 200)
        _ = try await device.notification()

        device.send(.unregister(topic: TestGateway.topic))
        guard case .unregistered(_, let gone, _, _)? = try await device.next() else {
            Issue.record("no unregistered")
            return
        }
        #expect(gone == token)
        let response = try await push(gateway, to: token)
        #expect(response.status == 410)
        #expect(response.reason == .unregistered)
        #expect(response.timestamp != nil)
        // Unregistering an app the device does not have is refused, and the link stays open.
        device.send(.unregister(topic: "com.example.never"))
        guard case .error(let refusal)? = try await device.next() else {
            Issue.record("no error")
            return
        }
        #expect(refusal.reason == "NotRegistered")
        #expect(refusal.topic == "com.example.never")  // the device knows which request it answers
        #expect(try await device.register("com.example.other").count == 64)
        await device.leave()
        try await gateway.stop()
    }

    @Test func unacknowledgedDeliveryIsResentAfterTheLinkDrops() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        #expect(try await push(gateway, to: token, alert("important")).status == 200)
        let unacknowledged = try await device.notification()
        await device.leave()

        let back = try await TestDevice.connect(to: gateway, key: device.key)
        let again = try await back.notification()
        #expect(again.uniqueID == unacknowledged.uniqueID)
        back.acknowledge(again)
        try await waitUntil { try await gateway.store.notification(id: again.uniqueID)?.delivery.state == .delivered }
        await back.leave()
        let third = try await TestDevice.connect(to: gateway, key: device.key)
        #expect(try await third.next(timeout: .milliseconds(300)) == nil)
        await third.leave()
        try await gateway.stop()
    }

    @Test func aDeviceThatNeverAcknowledgesHasAtMostTheWindowInFlight() async throws {
        let gateway = try await TestGateway.start { $0.deviceLinkWindow = 8 }
        try await gateway.store.setStoragePolicy(.all(), bundleID: TestGateway.topic)
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        for index in 1...30 { #expect(try await push(gateway, to: token, alert("n\(index)")).status == 200) }
        var received: [LinkNotification] = []
        while let message = try await device.next(timeout: .milliseconds(300)), case .notification(let notification) = message {
            received.append(notification)
        }
        #expect(received.count == 8)
        // Acknowledging frees the window; the rest come from the store, in order.
        for notification in received { device.acknowledge(notification) }
        var texts = try received.map { try text(of: $0) ?? "" }
        while texts.count < 30, case .notification(let notification)? = try await device.next() {
            texts.append(try text(of: notification) ?? "")
            device.acknowledge(notification)
        }
        #expect(texts == (1...30).map { "n\($0)" })
        await device.leave()
        try await gateway.stop()
    }

    @Test(arguments: [
        ("not json", "1007"),
        (#"{"type":"launch-missiles"}"#, "1007"),
        (#"{"type":"notification","x":1}"#, "1007"),
        (#"{"type":"welcome","deviceID":"me"}"#, "1002"),
    ])
    func malformedMessagesCloseOnlyThatLinkWithAReason(message: String, code: String) async throws {
        let gateway = try await TestGateway.start()
        let bystander = try await TestDevice.connect(to: gateway)
        let token = try await bystander.register(TestGateway.topic)
        let offender = try await TestDevice.connect(to: gateway)
        offender.sendRaw(message)
        let closed = await offender.closed()
        #expect(closed.contains(code) || closed.contains(Self.closeCodeName(code)), "closed: \(closed)")
        #expect(closed.contains(":") && !closed.hasSuffix(": "), "a close reason is given: \(closed)")
        #expect(try await push(gateway, to: token).status == 200)
        _ = try await bystander.notification()
        await bystander.leave()
        try await gateway.stop()
    }

    private static func closeCodeName(_ code: String) -> String {
        [
            "1007": "dataInconsistentWithMessage", "1002": "protocolError", "1008": "policyViolation", "1009": "messageTooLarge",
            "1003": "unacceptableData",
        ][code] ?? code
    }

    @Test func oversizedAndBinaryMessagesCloseTheLink() async throws {
        let gateway = try await TestGateway.start { $0.deviceLinkMessageLimit = 1024 }
        let big = try await TestDevice.connect(to: gateway)
        big.send(.register(topic: String(repeating: "a", count: 4000)))
        let bigClosed = await big.closed()
        #expect(bigClosed.contains("1009") || bigClosed.contains("messageTooLarge"), "closed: \(bigClosed)")
        let binary = try await TestDevice.connect(to: gateway)
        binary.sendBinary([1, 2, 3])
        let binaryClosed = await binary.closed()
        #expect(binaryClosed.contains("unacceptableData") || binaryClosed.contains("1003"), "closed: \(binaryClosed)")
        try await gateway.stop()
    }

    @Test func aForgedHelloIsRefused() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway, authenticate: false)
        guard case .challenge? = try await device.next() else {
            Issue.record("no challenge")
            return
        }
        // Signed over another nonce: a replayed or made-up answer.
        let stolen = try DeviceIdentity.hello(answering: "another-nonce", with: device.key)
        device.send(.hello(stolen))
        let closed = await device.closed()
        #expect(closed.contains("authentication failed"), "closed: \(closed)")
        try await gateway.stop()
    }

    /// A device that registered the default app and then went offline, with its token.
    private func offlineDevice(_ gateway: TestGateway) async throws -> (TestDevice, String) {
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        await device.leave()
        try await waitUntilOffline(gateway, device.deviceID)
        return (device, token)
    }

    private func waitUntilOffline(_ gateway: TestGateway, _ deviceID: String) async throws {
        // The gateway sees the close a moment after the device sent it.
        try await waitUntil {
            let devices = try await AdminClient(gateway: gateway).get("/v1/devices").body["devices"]
            return devices?.first { $0["deviceID"]?.stringValue == deviceID }?["online"] == .bool(false)
        }
    }
}

/// Polls `condition` every 10 ms for up to 20 s: a loaded parallel run can starve a test for seconds.
func waitUntil(_ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within 20 s")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
