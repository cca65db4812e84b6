import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plain HTTP client for the console port.
struct AdminClient {
    let gateway: TestGateway
    var token: String?

    init(gateway: TestGateway, token: String? = nil) {
        self.gateway = gateway
        self.token = token ?? gateway.gateway.adminToken
    }

    struct Reply {
        var status: Int
        var body: JSONValue
        var headers: [AnyHashable: Any]
    }

    func get(_ path: String) async throws -> Reply { try await request("GET", path) }

    func request(_ method: String, _ path: String, body: String? = nil) async throws -> Reply {
        let port = try await gateway.gateway.consolePort()
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Reply(status: http.statusCode, body: (try? JSONValue.parse(data)) ?? .null, headers: http.allHeaderFields)
    }
}

@Suite struct AdminAPITests {
    @Test(arguments: [
        "/v1/devices", "/v1/apps", "/v1/keys", "/v1/notifications/01a2025f-661a-7c6b-90ce-a0d495582c4d", "/v1/notifications",
        "/v1/notifications?q=ab",
    ])
    func everyAdminRouteNeedsTheToken(path: String) async throws {
        let gateway = try await TestGateway.start()
        var anonymous = AdminClient(gateway: gateway)
        anonymous.token = nil
        let missing = try await anonymous.get(path)
        #expect(missing.status == 401)
        #expect(missing.body["reason"]?.stringValue == "Unauthorized")
        let wrong = try await AdminClient(gateway: gateway, token: String(repeating: "0", count: 64)).get(path)
        #expect(wrong.status == 401)
        #expect(try await AdminClient(gateway: gateway).get(path).status != 401)
        // The console's health check stays open.
        #expect(try await anonymous.get("/healthz").status == 200)
        try await gateway.stop()
    }

    @Test func theAdminTokenIsASecretFileMadeAtFirstStart() async throws {
        let gateway = try await TestGateway.start()
        let attributes = try FileManager.default.attributesOfItem(atPath: gateway.directory.adminTokenPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let onDisk = try String(contentsOfFile: gateway.directory.adminTokenPath, encoding: .utf8)
        #expect(onDisk.trimmingCharacters(in: .whitespacesAndNewlines) == gateway.gateway.adminToken)
        #expect(gateway.gateway.adminToken.count == 64)
        try await gateway.stop()
    }

    @Test func theDeliveryLogShowsTheTimelineByEitherID() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        let connection = try await gateway.connect()
        var push = Push(token: token, jwt: gateway.defaultJWT)
        push.collapseID = "c1"
        let response = try await connection.send(push)
        device.acknowledge(try await device.notification())
        let admin = AdminClient(gateway: gateway)
        let uniqueID = try #require(response.uniqueID)
        let apnsID = try #require(response.apnsID)
        try await waitUntil { try await admin.get("/v1/notifications/\(uniqueID)").body["state"] == .string("delivered") }

        for id in [uniqueID, apnsID.uppercased()] {
            let log = try await admin.get("/v1/notifications/\(id)")
            #expect(log.status == 200)
            #expect(log.body["apnsID"]?.stringValue == apnsID)
            #expect(log.body["collapseID"]?.stringValue == "c1")
            #expect(log.body["deviceToken"]?.stringValue == token)
            guard case .array(let events)? = log.body["timeline"] else {
                Issue.record("no timeline")
                continue
            }
            #expect(events.compactMap { $0["event"]?.stringValue } == ["accepted", "delivered"])
        }
        #expect(try await admin.get("/v1/notifications/\(UUID().uuidString)").status == 404)
        #expect(try await admin.get("/v1/notifications/not-a-uuid").status == 400)

        // Offline, then unregistered: accepted, stored, discarded because unregistered.
        await device.leave()
        try await waitUntil { try await admin.get("/v1/devices").body["devices"]?.first?["online"] == .bool(false) }
        let stored = try await connection.send(Push(token: token, jwt: gateway.defaultJWT))
        let back = try await TestDevice.connect(to: gateway, key: device.key)
        _ = try await back.notification()
        back.send(.unregister(topic: TestGateway.topic))
        _ = try await back.next()
        let log = try await admin.get("/v1/notifications/\(try #require(stored.uniqueID))")
        guard case .array(let events)? = log.body["timeline"] else {
            Issue.record("no timeline")
            return
        }
        #expect(events.compactMap { $0["event"]?.stringValue } == ["accepted", "stored", "discarded"])
        #expect(events.last?["reason"]?.stringValue == "unregistered")
        await back.leave()
        await connection.close()
        try await gateway.stop()
    }

    @Test func devicesAndAppsAreListedAndPoliciesSet() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register("com.example.listed")
        let admin = AdminClient(gateway: gateway)

        let devices = try await admin.get("/v1/devices").body["devices"]
        #expect(devices?.first?["deviceID"]?.stringValue == device.deviceID)
        #expect(devices?.first?["online"] == .bool(true))
        #expect(devices?.first?["apps"]?.first?["deviceToken"]?.stringValue == token)

        let set = try await admin.request("PUT", "/v1/apps/com.example.listed", body: #"{"kind":"all","cap":50}"#)
        #expect(set.status == 200)
        let apps = try await admin.get("/v1/apps").body["apps"]
        let listed = apps?.first { $0["bundleID"]?.stringValue == "com.example.listed" }
        #expect(listed?["storagePolicy"] == .object(["kind": .string("all"), "cap": .integer(50)]))
        #expect(listed?["devices"] == .integer(1))
        #expect(try await gateway.store.storagePolicy(bundleID: "com.example.listed") == .all(cap: 50))

        #expect(try await admin.request("PUT", "/v1/apps/com.example.listed", body: #"{"kind":"some"}"#).status == 400)
        #expect(try await admin.request("PUT", "/v1/apps/com.example.listed", body: #"{"kind":"all","cap":0}"#).status == 400)
        await device.leave()
        try await gateway.stop()
    }
}

extension JSONValue {
    /// The first element of an array.
    var first: JSONValue? {
        if case .array(let list) = self { return list.first }
        return nil
    }

    func first(where predicate: (JSONValue) -> Bool) -> JSONValue? {
        if case .array(let list) = self { return list.first(where: predicate) }
        return nil
    }
}
