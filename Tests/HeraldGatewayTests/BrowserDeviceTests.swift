import Foundation
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// The browser device's side of the gateway: its link relayed over the console's origin for signed-in pages only,
/// and the responses it reports, kept in the delivery log.
@Suite struct BrowserDeviceTests {
    /// Signs in and returns the headers a console page's WebSocket upgrade carries: the session cookie, the page's
    /// origin and the upgrade itself.
    private func pageHeaders(_ http: ConsoleHTTP, _ gateway: TestGateway) async throws -> [String: String] {
        let reply = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=\(gateway.gateway.adminToken)")
        let cookie = try #require(reply.header("set-cookie")?.split(separator: ";").first.map(String.init))
        return [
            "Cookie": cookie, "Origin": "http://127.0.0.1:\(http.port)", "Connection": "Upgrade", "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
    }

    /// What the console sends back to an upgrade request, up to `until` (or the end).
    private func upgrade(_ http: ConsoleHTTP, headers: [String: String], until marker: String) async throws -> String {
        var received = ""
        for try await chunk in try await http.stream("/device/link", headers: headers) {
            received += chunk
            if received.contains(marker) { break }
        }
        return received
    }

    @Test func aSignedInPageIsADeviceAndItsResponseReachesTheDeliveryLog() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)

        let sent = try await AdminClient(gateway: gateway).request(
            "POST", "/v1/send",
            body: String(
                decoding: JSONValue.object([
                    "deviceToken": .string(token), "topic": .string(TestGateway.topic), "payload": .string(#"{"aps":{"alert":"Lunch?"}}"#),
                ]).encoded(), as: UTF8.self))
        let uniqueID = try #require(sent.body["uniqueID"]?.stringValue)
        let notification = try await device.notification()
        #expect(APNsID.format(notification.uniqueID) == uniqueID)
        device.acknowledge(notification)
        device.send(.response(uniqueID: notification.uniqueID, action: "REPLY", text: "Yes, 12:30"))

        try await waitUntil { try await gateway.store.notification(id: notification.uniqueID)?.response != nil }
        let log = try await AdminClient(gateway: gateway).get("/v1/notifications/\(uniqueID)")
        guard case .array(let timeline)? = log.body["timeline"] else { throw TestFailure("no timeline: \(log.body)") }
        let responded = try #require(timeline.first { $0["event"]?.stringValue == "responded" })
        #expect(responded["action"]?.stringValue == "REPLY" && responded["text"]?.stringValue == "Yes, 12:30")
        #expect(timeline.contains { $0["event"]?.stringValue == "delivered" })
        await device.leave()
        try await gateway.stop()
    }

    /// A signed-in page of the console gets the device port's challenge through the relay; a page of another origin
    /// or a visitor without a session gets no WebSocket.
    @Test func theRelayedLinkIsOnlyForSignedInPagesOfTheConsole() async throws {
        let gateway = try await TestGateway.start()
        let http = ConsoleHTTP(port: try await gateway.gateway.consolePort())
        let headers = try await pageHeaders(http, gateway)
        let relayed = try await upgrade(http, headers: headers, until: #""type":"challenge""#)
        #expect(relayed.hasPrefix("HTTP/1.1 101"), "\(relayed)")
        #expect(relayed.contains(#""type":"challenge""#))

        let foreign = try await upgrade(http, headers: headers.merging(["Origin": "https://evil.example"]) { _, new in new }, until: "\r\n\r\n")
        // A refused upgrade is answered 400 by the WebSocket layer before any route sees it.
        #expect(foreign.hasPrefix("HTTP/1.1 400") && !foreign.contains("challenge"), "\(foreign)")
        let anonymous = try await upgrade(http, headers: headers.filter { $0.key != "Cookie" }, until: "\r\n\r\n")
        #expect(anonymous.hasPrefix("HTTP/1.1 400") && !anonymous.contains("challenge"), "\(anonymous)")
        // A plain request for the link's path says what it is for.
        #expect(try await http.send("GET", "/device/link").status == 401)
        #expect(try await http.send("GET", "/device/link", headers: ["Cookie": headers["Cookie"] ?? ""]).status == 426)
        try await gateway.stop()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
