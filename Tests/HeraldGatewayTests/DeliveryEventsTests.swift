import Foundation
import HeraldClient
import HeraldGateway
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

    @Test func anonymousFollowersAreRefused() async throws {
        let gateway = try await TestGateway.start()
        let reply = try await ConsoleHTTP(port: try await gateway.gateway.consolePort()).send("GET", "/v1/events")
        #expect(reply.status == 401)
        try await gateway.stop()
    }
}
