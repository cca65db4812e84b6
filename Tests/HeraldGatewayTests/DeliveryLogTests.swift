import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// `GET /v1/notifications?q=…&before=…&limit=…` over HTTP on a real gateway: the delivery log's search, paging,
/// refusals, and each timeline's steps in words.
@Suite struct DeliveryLogTests {
    /// Sends `push` on `connection` and returns the notification's apns-id and unique id as the gateway answered them.
    private func send(_ push: Push, on connection: APNsConnection) async throws -> (apnsID: String, uniqueID: String) {
        let response = try await connection.send(push)
        #expect(response.status == 200)
        return (try #require(response.apnsID), try #require(response.uniqueID))
    }

    /// Every page of a search, following `next`.
    private func everyPage(_ admin: AdminClient, _ query: String, limit: Int) async throws -> (items: [JSONValue], pages: Int) {
        var items: [JSONValue] = []
        var path = "/v1/notifications?q=\(query)&limit=\(limit)"
        var pages = 0
        while true {
            let reply = try await admin.get(path)
            #expect(reply.status == 200, "\(path): \(reply.body)")
            guard case .array(let page)? = reply.body["notifications"] else { throw Unexpected(reply.body) }
            pages += 1
            items += page
            guard let next = reply.body["next"]?.integerValue else { return (items, pages) }
            #expect(page.count == limit && page.last?["logID"]?.integerValue == next)
            path = "/v1/notifications?q=\(query)&limit=\(limit)&before=\(next)"
        }
    }

    private struct Unexpected: Error {
        var body: JSONValue
        init(_ body: JSONValue) { self.body = body }
    }

    private func steps(of item: JSONValue?) -> [JSONValue] {
        guard case .array(let steps)? = item?["timeline"] else { return [] }
        return steps
    }

    private func events(of item: JSONValue?) -> [String] {
        steps(of: item).compactMap { $0["event"]?.stringValue }
    }

    @Test func searchesByEitherIDOrTokenPrefixAndPagesNewestFirst() async throws {
        let gateway = try await TestGateway.start()
        let admin = AdminClient(gateway: gateway)
        let (first, second) = (try await gateway.issueToken(), try await gateway.issueToken())
        let connection = try await gateway.connect()
        var toFirst: [String] = []
        for _ in 0..<5 { toFirst.append(try await send(Push(token: first, jwt: gateway.defaultJWT), on: connection).uniqueID) }
        // A provider may send the same apns-id twice: both are found by it.
        let reused = "01a2025f-661a-7c6b-90ce-a0d495582c4d"
        var again = Push(token: second, jwt: gateway.defaultJWT)
        again.apnsID = reused
        let reusedOnce = try await send(again, on: connection)
        let other = try await send(Push(token: second, jwt: gateway.defaultJWT), on: connection)
        let reusedTwice = try await send(again, on: connection)

        // Everything, newest first, with the store's ids to page by.
        let all = try await admin.get("/v1/notifications")
        guard case .array(let everything)? = all.body["notifications"] else { throw Unexpected(all.body) }
        #expect(
            everything.compactMap { $0["uniqueID"]?.stringValue } == [reusedTwice.uniqueID, other.uniqueID, reusedOnce.uniqueID] + toFirst.reversed())
        let logIDs = everything.compactMap { $0["logID"]?.integerValue }
        #expect(logIDs.count == 8 && logIDs == logIDs.sorted(by: >))
        #expect(all.body["next"] == nil)

        // By apns-id, either case; by unique id.
        for query in [reused, reused.uppercased()] {
            let found = try await everyPage(admin, query, limit: 50).items
            #expect(found.compactMap { $0["uniqueID"]?.stringValue } == [reusedTwice.uniqueID, reusedOnce.uniqueID])
            #expect(found.allSatisfy { $0["apnsID"]?.stringValue == reused })
        }
        let byUniqueID = try await everyPage(admin, other.uniqueID, limit: 50).items
        #expect(byUniqueID.compactMap { $0["apnsID"]?.stringValue } == [other.apnsID])
        #expect(try await everyPage(admin, UUID().uuidString, limit: 50).items.isEmpty)

        // By token prefix (either case), two at a time: three pages, the last without `next`.
        let (pagedFirst, pages) = try await everyPage(admin, String(first.prefix(12)).uppercased(), limit: 2)
        #expect(pages == 3)
        #expect(pagedFirst.compactMap { $0["uniqueID"]?.stringValue } == toFirst.reversed())
        #expect(pagedFirst.allSatisfy { $0["deviceToken"]?.stringValue == first })
        let bySecond = try await everyPage(admin, second, limit: 50).items
        #expect(bySecond.compactMap { $0["uniqueID"]?.stringValue } == [reusedTwice.uniqueID, other.uniqueID, reusedOnce.uniqueID])
        // 32 hex digits are a token prefix, not an id written without its dashes.
        let undashed = reused.replacingOccurrences(of: "-", with: "")
        #expect(try await everyPage(admin, undashed, limit: 50).items.isEmpty)
        #expect(try await everyPage(admin, String(first.prefix(32)), limit: 50).items.count == 5)
        await connection.close()
        try await gateway.stop()
    }

    @Test(arguments: [
        ("q=not-an-id", "BadQuery"), ("q=01a2025f-661a-7c6b-90ce", "BadQuery"), ("q=\(String(repeating: "a", count: 401))", "BadQuery"),
        ("before=abc", "BadCursor"), ("before=0", "BadCursor"), ("before=-5", "BadCursor"),
        ("limit=0", "BadLimit"), ("limit=201", "BadLimit"), ("limit=ten", "BadLimit"),
    ])
    func aMalformedSearchIsRefusedSayingWhatToSend(query: String, reason: String) async throws {
        let gateway = try await TestGateway.start()
        let reply = try await AdminClient(gateway: gateway).get("/v1/notifications?\(query)")
        #expect(reply.status == 400)
        #expect(reply.body["reason"]?.stringValue == reason)
        let message = reply.body["message"]?.stringValue ?? ""
        switch reason {
        case "BadQuery": #expect(message.contains("apns-id") || message.contains("at most 400 hex digits"), "\(message)")
        case "BadCursor": #expect(message.contains("before"), "\(message)")
        default: #expect(message.contains("1 to 200"), "\(message)")
        }
        try await gateway.stop()
    }

    @Test func aPageHoldsFiftyUnlessToldAndTwoHundredAtMost() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        let connection = try await gateway.connect()
        for _ in 0..<51 { _ = try await send(Push(token: token, jwt: gateway.defaultJWT), on: connection) }
        let admin = AdminClient(gateway: gateway)
        let first = try await admin.get("/v1/notifications")
        guard case .array(let page)? = first.body["notifications"] else { throw Unexpected(first.body) }
        #expect(page.count == 50 && first.body["next"]?.integerValue == page.last?["logID"]?.integerValue)
        #expect(try await everyPage(admin, "", limit: 200).items.count == 51)
        await connection.close()
        try await gateway.stop()
    }

    @Test func aVirtualDevicesNotificationIsKeptForTheLogAndSaysSo() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let sent = try await send(Push(token: try await gateway.issueToken(), jwt: gateway.defaultJWT), on: connection)
        let item = try await everyPage(AdminClient(gateway: gateway), sent.uniqueID, limit: 50).items.first
        #expect(events(of: item) == ["accepted", "stored"])
        #expect(item?["state"]?.stringValue == "pending")
        let stored = steps(of: item).last
        #expect(stored?["reason"]?.stringValue == "virtual")
        #expect(stored?["detail"]?.stringValue?.contains("virtual device (from herald tokens issue)") == true)
        #expect(steps(of: item).first?["detail"]?.stringValue?.hasPrefix("Accepted: answered 200") == true)
        await connection.close()
        try await gateway.stop()
    }

    @Test func anOfflineDevicesNotificationsAreStoredThenReplacedOrExpiredAndSaySo() async throws {
        let gateway = try await TestGateway.start()
        let admin = AdminClient(gateway: gateway)
        let device = try await TestDevice.connect(to: gateway)
        let latestToken = try await device.register(TestGateway.topic)
        let allApp = "com.example.everything"
        let allToken = try await device.register(allApp)
        try await gateway.store.setStoragePolicy(.all(cap: 10), bundleID: allApp)
        await device.leave()
        try await waitUntil { try await admin.get("/v1/devices").body["devices"]?.first?["online"] == .bool(false) }
        let connection = try await gateway.connect()

        // latest: the second replaces the first.
        let replaced = try await send(Push(token: latestToken, jwt: gateway.defaultJWT), on: connection)
        let newest = try await send(Push(token: latestToken, jwt: gateway.defaultJWT), on: connection)
        // all: the same collapse id replaces the earlier one; apns-expiration 0 is never stored; a near one expires.
        var score = Push(token: allToken, topic: allApp, jwt: gateway.defaultJWT)
        score.collapseID = "score"
        let firstScore = try await send(score, on: connection)
        _ = try await send(score, on: connection)
        var nowOrNever = Push(token: allToken, topic: allApp, jwt: gateway.defaultJWT)
        nowOrNever.expiration = 0
        let never = try await send(nowOrNever, on: connection)
        var soon = Push(token: allToken, topic: allApp, jwt: gateway.defaultJWT)
        let deadline = Int64(gateway.clock.now().timeIntervalSince1970) + 60
        soon.expiration = deadline
        let expiring = try await send(soon, on: connection)
        await connection.close()

        let latest = try await everyPage(admin, replaced.uniqueID, limit: 50).items.first
        #expect(events(of: latest) == ["accepted", "stored", "discarded"])
        #expect(steps(of: latest).first { $0["event"] == .string("stored") }?["reason"]?.stringValue == "offline")
        #expect(steps(of: latest).first { $0["event"] == .string("stored") }?["detail"]?.stringValue?.contains("storage policy, latest") == true)
        let coalesced = steps(of: latest).last
        #expect(coalesced?["reason"]?.stringValue == "coalesced" && coalesced?["replacedBy"]?.stringValue == "latest-policy")
        #expect(coalesced?["detail"]?.stringValue?.hasPrefix("Replaced by a newer notification") == true)
        #expect(events(of: try await everyPage(admin, newest.uniqueID, limit: 50).items.first) == ["accepted", "stored"])

        let collapsed = try await everyPage(admin, firstScore.uniqueID, limit: 50).items.first
        #expect(steps(of: collapsed).last?["replacedBy"]?.stringValue == "collapse-id")
        #expect(steps(of: collapsed).last?["detail"]?.stringValue?.contains("the same collapse id (score)") == true)
        #expect(collapsed?["storagePolicy"] == .object(["kind": .string("all"), "cap": .integer(10)]))

        let dropped = try await everyPage(admin, never.uniqueID, limit: 50).items.first
        #expect(events(of: dropped) == ["accepted", "discarded"])
        #expect(steps(of: dropped).last?["reason"]?.stringValue == "expired")
        #expect(steps(of: dropped).last?["detail"]?.stringValue?.contains("apns-expiration 0 means deliver now or never") == true)

        // The device comes back after the deadline: the gateway finds it expired instead of delivering it.
        gateway.clock.advance(by: 120)
        let back = try await TestDevice.connect(to: gateway, key: device.key)
        try await waitUntil { try await everyPage(admin, expiring.uniqueID, limit: 50).items.first?["state"] == .string("discarded") }
        let expired = try await everyPage(admin, expiring.uniqueID, limit: 50).items.first
        #expect(events(of: expired) == ["accepted", "stored", "discarded"])
        #expect(steps(of: expired).last?["reason"]?.stringValue == "expired")
        let stamp = try #require(steps(of: expired).last?["detail"]?.stringValue)
        #expect(stamp.contains("its apns-expiration (") && stamp.contains("passed before the device took it"), "\(stamp)")
        await back.leave()
        try await gateway.stop()
    }
}
