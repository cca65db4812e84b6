import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// The console's devices and apps: a linked device's app unregistered, an app's storage policy changed, each acted
/// on by the provider API at once though it caches devices and policies for an hour here.
@Suite struct ConsoleDevicesTests {
    /// A linked device's app unregistered from the console: gone from the devices list, its token gets 410.
    @Test func aLinkedDevicesAppIsUnregistered() async throws {
        let gateway = try await ConsoleKeysTests.start()
        let admin = AdminClient(gateway: gateway)
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        let listed = try await admin.get("/v1/devices").body["devices"]?.first?["apps"]?.first
        #expect(listed?["deviceToken"]?.stringValue == token && listed?["environment"]?.stringValue == "development")
        #expect(listed?["registered"]?.stringValue != nil)

        let reply = try await admin.request("POST", "/v1/tokens/\(token)/unregister", body: #"{"reason":"unregistered"}"#)
        #expect(reply.status == 200 && reply.body["deviceID"]?.stringValue == device.deviceID, "\(reply.body)")
        #expect(try await admin.get("/v1/devices").body["devices"]?.first?["apps"] == .array([]))
        let gone = try await ConsoleKeysTests.push(gateway, token: token, jwt: gateway.defaultJWT)
        #expect(gone.status == 410 && gone.reason == .unregistered)
        await device.leave()
        try await gateway.stop()
    }

    /// A policy set from the console holds for the next push, though the provider API had cached the app's old one.
    @Test func aChangedStoragePolicyHoldsAtOnce() async throws {
        let gateway = try await ConsoleKeysTests.start()
        let admin = AdminClient(gateway: gateway)
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        await device.leave()
        try await waitUntil { try await admin.get("/v1/devices").body["devices"]?.first?["online"] == .bool(false) }
        let connection = try await gateway.connect()
        #expect(try await connection.send(Push(token: token, jwt: gateway.defaultJWT)).status == 200)  // latest, cached now

        let set = try await admin.request("PUT", "/v1/apps/\(TestGateway.topic)", body: #"{"kind":"all","cap":5}"#)
        #expect(set.status == 200, "\(set.body)")
        for _ in 1...2 { #expect(try await connection.send(Push(token: token, jwt: gateway.defaultJWT)).status == 200) }
        // Under latest the device would have one waiting; under all, what came after the change is kept too.
        #expect(try await admin.get("/v1/devices").body["devices"]?.first?["pending"] == .integer(3))
        await connection.close()
        try await gateway.stop()
    }
}
