import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import HeraldWire
import Testing

/// `GET /v1/events`: Server-Sent Events of delivery state changes, for the console's pages and for `curl -N`.
@Suite struct DeliveryEventsTests {
    @Test func aFollowerSeesANotificationAcceptedThenDelivered() async throws {
        let gateway = try await TestGateway.start()
        let http = ConsoleHTTP(port: try await gateway.gateway.consolePort())
        let events = try await http.stream("/v1/events", headers: ["Authorization": "Bearer \(gateway.gateway.adminToken)"])
        var received = ""
        var iterator = events.makeAsyncIterator()
        while !received.contains(": following delivery events") { received += try await iterator.next() ?? "" }
        #expect(received.hasPrefix("HTTP/1.1 200") && received.lowercased().contains("content-type: text/event-stream"))

        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        var push = Push(token: token, jwt: gateway.defaultJWT)
        push.body = Data(#"{"aps":{"alert":"watched"}}"#.utf8)
        let connection = try await gateway.connect()
        let response = try await connection.send(push)
        await connection.close()
        #expect(response.status == 200)
        device.acknowledge(try await device.notification())

        let uniqueID = try #require(response.uniqueID)
        while !(received.contains("event: delivered") && received.contains(uniqueID)) { received += try await iterator.next() ?? "" }
        let lines = received.components(separatedBy: "\n")
        let accepted = try #require(lines.firstIndex { $0.hasSuffix("event: accepted") })  // chunked: sizes precede events
        let acceptedData = try JSONValue.parse(Data(lines[accepted + 1].dropFirst("data: ".count).utf8))
        #expect(acceptedData["apnsID"]?.stringValue == response.apnsID && acceptedData["deviceToken"]?.stringValue == token)
        let delivered = try #require(lines.firstIndex { $0.hasSuffix("event: delivered") })
        #expect(delivered > accepted)
        #expect(try JSONValue.parse(Data(lines[delivered + 1].dropFirst("data: ".count).utf8))["uniqueID"]?.stringValue == uniqueID)
        await device.leave()
        try await gateway.stop()
    }

    @Test func aFollowerSeesWhyANotificationWasStoredOrDiscarded() async throws {
        let gateway = try await TestGateway.start()
        let http = ConsoleHTTP(port: try await gateway.gateway.consolePort())
        let stream = try await http.stream("/v1/events", headers: ["Authorization": "Bearer \(gateway.gateway.adminToken)"])
        var iterator = stream.makeAsyncIterator()
        var received = ""
        while !received.contains(": following delivery events") { received += try await iterator.next() ?? "" }
        /// The events received whole so far, as (name, data).
        func events() -> [(String, JSONValue)] {
            let lines = received.components(separatedBy: "\n")
            return lines.indices.compactMap { index in
                guard let range = lines[index].range(of: "event: "), index + 1 < lines.count,
                    let data = try? JSONValue.parse(Data(lines[index + 1].dropFirst("data: ".count).utf8))
                else { return nil }
                return (String(lines[index][range.upperBound...]), data)
            }
        }

        // A virtual device's notification: accepted, then stored for the log.
        let connection = try await gateway.connect()
        let virtual = try await connection.send(Push(token: try await gateway.issueToken(), jwt: gateway.defaultJWT))
        // An offline device's with apns-expiration 0: accepted, then discarded at once.
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        await device.leave()
        try await waitUntil { try await AdminClient(gateway: gateway).get("/v1/devices").body["devices"]?.first?["online"] == .bool(false) }
        var nowOrNever = Push(token: token, jwt: gateway.defaultJWT)
        nowOrNever.expiration = 0
        let dropped = try await connection.send(nowOrNever)
        await connection.close()
        // The app removed from the device.
        let back = try await TestDevice.connect(to: gateway, key: device.key)
        back.send(.unregister(topic: TestGateway.topic))
        _ = try await back.next()

        while !events().contains(where: { $0.0 == "unregistered" }) { received += try await iterator.next() ?? "" }
        let seen = events()
        let about = { (uniqueID: String?) in seen.filter { $0.1["uniqueID"]?.stringValue == uniqueID } }
        #expect(about(virtual.uniqueID).map(\.0) == ["accepted", "stored"])
        let accepted = try #require(about(virtual.uniqueID).first?.1)
        #expect(accepted["logID"]?.integerValue != nil && accepted["pushType"]?.stringValue == "alert")
        #expect(accepted["state"]?.stringValue == "pending" && accepted["topic"]?.stringValue == TestGateway.topic)
        let stored = try #require(about(virtual.uniqueID).last?.1)
        #expect(stored["reason"]?.stringValue == "virtual" && stored["logID"] == accepted["logID"])
        #expect(stored["detail"]?.stringValue?.contains("virtual device") == true)

        #expect(about(dropped.uniqueID).map(\.0) == ["accepted", "discarded"])
        let discarded = try #require(about(dropped.uniqueID).last?.1)
        #expect(discarded["reason"]?.stringValue == "expired" && discarded["state"]?.stringValue == "discarded")
        #expect(discarded["detail"]?.stringValue?.contains("apns-expiration 0") == true)
        let unregistered = try #require(seen.first { $0.0 == "unregistered" }?.1)
        #expect(unregistered["deviceToken"]?.stringValue == token && unregistered["topic"]?.stringValue == TestGateway.topic)
        await back.leave()
        try await gateway.stop()
    }

    @Test func anonymousFollowersAreRefused() async throws {
        let gateway = try await TestGateway.start()
        let reply = try await ConsoleHTTP(port: try await gateway.gateway.consolePort()).send("GET", "/v1/events")
        #expect(reply.status == 401)
        try await gateway.stop()
    }
}
