import Foundation
public import HeraldStore
import HeraldWire
import Testing

/// The behaviour every ``Store`` must have, one check per behaviour so that a failure names it. Each store's tests
/// run every ``Behaviour`` against a fresh store:
///
/// ```swift
/// @Test(arguments: StoreConformance.Behaviour.allCases)
/// func conforms(_ behaviour: StoreConformance.Behaviour) async throws {
///     try await behaviour.check(SQLiteStore(path: TemporaryPath.make("store", suffix: ".sqlite")))
/// }
/// ```
public enum StoreConformance {
    public enum Behaviour: String, CaseIterable, Sendable, CustomStringConvertible {
        case keysRoundTrip, devicesRoundTrip, retirements, notificationsRoundTrip, registrations, offlinePolicies, deliveryStates, responses,
            deliveryLog, broadcastChannels, tokenKinds, channelSubscriptions, faultRules, webPush

        public var description: String { rawValue }

        /// Checks this behaviour of `store`, which must be empty.
        public func check(_ store: any Store) async throws {
            switch self {
            case .keysRoundTrip: try await StoreConformance.keysRoundTrip(store)
            case .devicesRoundTrip: try await StoreConformance.devicesRoundTrip(store)
            case .retirements: try await StoreConformance.retirements(store)
            case .notificationsRoundTrip: try await StoreConformance.notificationsRoundTrip(store)
            case .registrations: try await StoreConformance.registrations(store)
            case .offlinePolicies: try await StoreConformance.offlinePolicies(store)
            case .deliveryStates: try await StoreConformance.deliveryStates(store)
            case .responses: try await StoreConformance.responses(store)
            case .deliveryLog: try await StoreConformance.deliveryLog(store)
            case .broadcastChannels: try await StoreConformance.broadcastChannels(store)
            case .tokenKinds: try await StoreConformance.tokenKinds(store)
            case .channelSubscriptions: try await StoreConformance.channelSubscriptions(store)
            case .faultRules: try await StoreConformance.faultRules(store)
            case .webPush: try await StoreConformance.webPush(store)
            }
        }
    }

    /// Channels round-trip, are listed per app and environment oldest first, keep their record once deleted (and are
    /// deleted once), and an app's live channels stop at the limit, which a deletion frees.
    static func broadcastChannels(_ store: any Store) async throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let first = BroadcastChannel(
            bundleID: "com.example.a", environment: .development, storagePolicy: .mostRecentMessageStored, createdAt: created)
        let second = BroadcastChannel(
            bundleID: "com.example.a", environment: .development, storagePolicy: .noMessageStored, createdAt: created.addingTimeInterval(1))
        let production = BroadcastChannel(bundleID: "com.example.a", environment: .production, storagePolicy: .noMessageStored, createdAt: created)
        #expect(first.id != second.id && Data(base64Encoded: first.id)?.count == 16)
        #expect(try await store.channel(id: first.id) == nil)
        #expect(try await store.createChannel(first, limit: 2))
        #expect(try await store.createChannel(second, limit: 2))
        #expect(try await store.createChannel(production, limit: 2))
        #expect(try await store.channel(id: first.id) == first)
        #expect(try await store.channels(bundleID: "com.example.a", environment: .development) == [first, second])
        #expect(try await store.channels(bundleID: "com.example.a", environment: .production) == [production])
        #expect(try await store.channels(bundleID: "com.example.b", environment: .development).isEmpty)

        let third = BroadcastChannel(bundleID: "com.example.a", environment: .development, storagePolicy: .noMessageStored, createdAt: created)
        #expect(try await store.createChannel(third, limit: 2) == false)  // the app's development channels are at the limit
        #expect(try await store.channel(id: third.id) == nil)

        let deletedAt = created.addingTimeInterval(60)
        #expect(try await store.deleteChannel(id: first.id, at: deletedAt))
        #expect(try await store.deleteChannel(id: first.id, at: deletedAt) == false)
        #expect(try await store.deleteChannel(id: BroadcastChannel.newID(), at: deletedAt) == false)
        #expect(try await store.channel(id: first.id)?.deletedAt == deletedAt)
        #expect(try await store.channels(bundleID: "com.example.a", environment: .development) == [second])
        #expect(try await store.createChannel(third, limit: 2))

        // A live channel keeps its latest broadcast, in the commit of its row, in place of the one before; a deleted
        // channel keeps none.
        #expect(try await store.latestBroadcast(channelID: second.id) == nil)
        let kept = try #require(try await store.insertNotifications([broadcast(on: second, at: created, keptFor: 3600)]).first)
        #expect(kept.channelID == second.id && kept.deviceID == nil)
        #expect(try await store.notification(id: kept.uniqueID)?.channelID == second.id)
        let latest = try #require(try await store.latestBroadcast(channelID: second.id))
        #expect(latest.notificationID == kept.id && latest.uniqueID == kept.uniqueID && latest.payload == kept.payload)
        #expect(latest.expiresAt == created.addingTimeInterval(3600) && latest.priority == 10)
        let next = try #require(try await store.insertNotifications([broadcast(on: second, at: created, keptFor: 60)]).first)
        #expect(try await store.latestBroadcast(channelID: second.id)?.notificationID == next.id)
        _ = try await store.insertNotifications([broadcast(on: second, at: created, keptFor: nil)])  // not kept: the latest stays
        #expect(try await store.latestBroadcast(channelID: second.id)?.notificationID == next.id)
        _ = try await store.insertNotifications([broadcast(on: first, at: created, keptFor: 60)])
        #expect(try await store.latestBroadcast(channelID: first.id) == nil)
    }

    /// A broadcast's row on `channel`, kept for `keptFor` seconds after `date` when given.
    static func broadcast(on channel: BroadcastChannel, at date: Date, keptFor: TimeInterval?) -> StoredNotification {
        // Ids from BroadcastChannel() are well formed.
        StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: BroadcastChannel.token(forChannel: channel.id)!,
            bundleID: channel.bundleID, topic: channel.bundleID + ".push-type.liveactivity", pushType: .liveActivity, priority: .immediate,
            expiration: keptFor.map { Int64(date.timeIntervalSince1970 + $0) } ?? 0, collapseID: nil,
            payload: Data(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8), receivedAt: date,
            channelID: channel.id, keptUntil: keptFor.map { date.addingTimeInterval($0) })
    }

    static func keysRoundTrip(_ store: any Store) async throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let key = ProviderKey(
            teamID: "TEAM123456", keyID: "KEY1234567", topics: ["com.example.a", "com.example.b"],
            environment: .development, publicKeyPEM: "PEM", createdAt: created
        )
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567") == nil)
        try await store.saveKey(key)
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567") == key)
        #expect(try await store.key(teamID: "OTHER00000", keyID: "KEY1234567") == nil)

        var revoked = key
        revoked.revokedAt = created.addingTimeInterval(60)
        try await store.saveKey(revoked)
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567") == revoked)

        let teamWide = ProviderKey(
            teamID: "TEAM123456", keyID: "KEY7654321", topics: [], environment: .production,
            publicKeyPEM: "PEM2", createdAt: created
        )
        try await store.saveKey(teamWide)
        #expect(try await store.keys() == [revoked, teamWide])
    }

    static func devicesRoundTrip(_ store: any Store) async throws {
        let token = DeviceToken.random()
        let device = DeviceRecord(
            token: token, topic: "com.example.a", environment: .development, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try await store.device(token) == nil)
        try await store.saveDevice(device)
        #expect(try await store.device(token) == device)

        let retiredAt = Date(timeIntervalSince1970: 1_700_000_500)
        #expect(try await store.retireDevice(token, as: .unregistered, at: retiredAt))
        let retired = try await store.device(token)
        #expect(retired?.retiredAt == retiredAt)
        #expect(retired?.retirement == .unregistered)
        #expect(try await store.retireDevice(DeviceToken.random(), as: .expired, at: retiredAt) == false)
    }

    /// Retirements are numbered in order, and read back from any number on, each with the token's record as retired.
    static func retirements(_ store: any Store) async throws {
        #expect(try await store.latestRetirement() == 0)
        let owner = "device-\(UUID().uuidString)"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var tokens: [DeviceRecord] = []
        for topic in ["com.example.a", "com.example.b", "com.example.c"] {
            tokens.append(try await store.register(owner: owner, bundleID: topic, environment: .development, at: now))
        }
        #expect(try await store.retireDevice(tokens[1].token, as: .unregistered, at: now + 1))
        #expect(try await store.retireDevice(DeviceToken.random(), as: .expired, at: now + 2) == false)  // unknown: no number
        #expect(try await store.retireDevice(tokens[0].token, as: .expired, at: now + 3))
        #expect(try await store.retireDevice(tokens[2].token, as: .unregistered, at: now + 4))

        let all = try await store.retirements(after: 0, limit: 10)
        #expect(all.map(\.sequence) == [1, 2, 3])
        #expect(all.map(\.device.token) == [tokens[1].token, tokens[0].token, tokens[2].token])
        #expect(all[1].device.retirement == .expired && all[1].device.retiredAt == now + 3 && all[1].device.owner == owner)
        #expect(all[1].device.topic == "com.example.a")
        #expect(try await store.retirements(after: 1, limit: 1).map(\.sequence) == [2])
        #expect(try await store.retirements(after: 3, limit: 10).isEmpty)
        #expect(try await store.latestRetirement() == 3)
    }

    static func notificationsRoundTrip(_ store: any Store) async throws {
        let before = try await store.notificationCount()
        let token = DeviceToken.random()
        let batch = (0..<250).map { index in
            StoredNotification(
                apnsID: UUID(), uniqueID: UUID(), deviceToken: token, bundleID: "com.example.a",
                topic: index.isMultiple(of: 2) ? "com.example.a" : "com.example.a.voip",
                pushType: index.isMultiple(of: 2) ? .alert : .voip, priority: .powerConsiderate,
                expiration: index.isMultiple(of: 3) ? nil : Int64(index), collapseID: index == 7 ? "c7" : nil,
                payload: Data(#"{"aps":{"alert":"n\#(index)"}}"#.utf8),
                receivedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
            )
        }
        let committed = try await store.insertNotifications(batch)
        #expect(committed.count == 250)
        let ids = committed.compactMap(\.id)
        #expect(ids.count == 250 && ids == ids.sorted() && Set(ids).count == 250)
        #expect(try await store.notificationCount() == before + 250)
        for notification in [committed[0], committed[7], committed[249]] {
            // A virtual device's notifications are kept for the log: pending and stored.
            #expect(notification.delivery == Delivery(storedAt: notification.receivedAt))
            #expect(try await store.notification(id: notification.apnsID) == notification)
            #expect(try await store.notification(id: notification.uniqueID) == notification)
        }
        #expect(try await store.notification(id: UUID()) == nil)
        #expect(try await store.insertNotifications([]).isEmpty)
        try await store.maintain()
        #expect(try await store.notificationCount() == before + 250)
        #expect(try await store.notification(id: batch[100].uniqueID) == committed[100])

        // The callback form commits the same way and calls back once it has.
        let more = Array(batch.prefix(3)).map { notification -> StoredNotification in
            var copy = notification
            copy.apnsID = UUID()
            copy.uniqueID = UUID()
            return copy
        }
        let calledBack = try await withCheckedContinuation { continuation in
            store.insertNotifications(more) { continuation.resume(returning: $0) }
        }.get()
        let highest = try #require(ids.last)
        #expect(calledBack.count == 3 && calledBack.allSatisfy { ($0.id ?? 0) > highest })
        #expect(try await store.notification(id: more[2].uniqueID) == calledBack[2])
    }

    static func registrations(_ store: any Store) async throws {
        let owner = "device-\(UUID().uuidString)"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let first = try await store.register(owner: owner, bundleID: "com.example.a", environment: .development, at: now)
        #expect(first.owner == owner && first.topic == "com.example.a" && first.retiredAt == nil)
        // The same app on the same device keeps its token.
        #expect(try await store.register(owner: owner, bundleID: "com.example.a", environment: .development, at: now) == first)
        let second = try await store.register(owner: owner, bundleID: "com.example.b", environment: .development, at: now)
        #expect(second.token != first.token)
        #expect(try await store.devices(owner: owner).map(\.topic) == ["com.example.a", "com.example.b"])

        #expect(try await store.retireDevice(first.token, as: .unregistered, at: now))
        #expect(try await store.devices(owner: owner).map(\.topic) == ["com.example.b"])
        // Registering again after removal gives a new token, as reinstalling an app does.
        let again = try await store.register(owner: owner, bundleID: "com.example.a", environment: .development, at: now)
        #expect(again.token != first.token)

        try await store.saveLinkedDevice(LinkedDevice(id: owner, publicKey: Data([4, 1, 2]), firstSeenAt: now, lastSeenAt: now))
        try await store.saveLinkedDevice(
            LinkedDevice(id: owner, publicKey: Data([4, 1, 2]), firstSeenAt: now.addingTimeInterval(9), lastSeenAt: now.addingTimeInterval(9)))
        let linked = try await store.linkedDevices().first { $0.id == owner }
        #expect(linked?.firstSeenAt == now && linked?.lastSeenAt == now.addingTimeInterval(9))

        #expect(try await store.storagePolicy(bundleID: "com.example.a") == .latest)
        try await store.setStoragePolicy(.all(cap: 5), bundleID: "com.example.a")
        #expect(try await store.storagePolicy(bundleID: "com.example.a") == .all(cap: 5))
        let apps = try await store.apps()
        #expect(apps.first { $0.bundleID == "com.example.a" }?.storagePolicy == .all(cap: 5))
        #expect(apps.first { $0.bundleID == "com.example.b" }?.storagePolicy == .latest)
    }

    private static func notification(
        to device: DeviceRecord,
        at seconds: Double,
        offline policy: StoragePolicy?,
        expiration: Int64? = nil,
        collapseID: String? = nil
    ) -> StoredNotification {
        StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: device.token, deviceID: device.owner, bundleID: device.topic,
            topic: device.topic, pushType: .alert, priority: .immediate, expiration: expiration, collapseID: collapseID,
            payload: Data(#"{"aps":{"alert":"x"}}"#.utf8), receivedAt: Date(timeIntervalSince1970: 1_700_000_000 + seconds),
            offlinePolicy: policy
        )
    }

    static func offlinePolicies(_ store: any Store) async throws {
        let owner = "device-\(UUID().uuidString)"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let latestApp = try await store.register(owner: owner, bundleID: "com.example.latest", environment: .development, at: now)
        let allApp = try await store.register(owner: owner, bundleID: "com.example.all", environment: .development, at: now)

        // latest: each stored notification replaces the one before; expiration 0 is never stored.
        let latest = try await store.insertNotifications([
            notification(to: latestApp, at: 1, offline: .latest),
            notification(to: latestApp, at: 2, offline: .latest),
            notification(to: latestApp, at: 3, offline: .latest, expiration: 0),
        ])
        #expect(try await store.notification(id: latest[0].uniqueID)?.delivery.discardReason == .coalesced)
        #expect(try await store.notification(id: latest[1].uniqueID)?.delivery.state == .pending)
        #expect(latest[2].delivery.state == .discarded && latest[2].delivery.discardReason == .expired)

        // all with a cap of 3: order kept, the oldest overflow, a collapse id replaces its earlier one.
        let all = try await store.insertNotifications((1...5).map { notification(to: allApp, at: Double($0), offline: .all(cap: 3)) })
        #expect(try await store.notification(id: all[0].uniqueID)?.delivery.discardReason == .overflow)
        #expect(try await store.notification(id: all[1].uniqueID)?.delivery.discardReason == .overflow)
        let collapsed = try await store.insertNotifications([
            notification(to: allApp, at: 6, offline: .all(cap: 3), collapseID: "c"),
            notification(to: allApp, at: 7, offline: .all(cap: 3), collapseID: "c"),
        ])
        #expect(try await store.notification(id: collapsed[0].uniqueID)?.delivery.discardReason == .coalesced)
        let pending = try await store.pendingNotifications(deviceID: owner, after: 0, limit: 100)
        // collapsed[0] pushed all[2] over the cap before collapsed[1] replaced it.
        #expect(try await store.notification(id: all[2].uniqueID)?.delivery.discardReason == .overflow)
        #expect(pending.map(\.uniqueID) == [latest[1], all[3], all[4], collapsed[1]].map(\.uniqueID))
        #expect(pending.compactMap(\.id) == pending.compactMap(\.id).sorted())
        #expect(try await store.pendingNotificationCount(deviceID: owner) == pending.count)

        // An online device's notifications are not coalesced.
        let online = try await store.insertNotifications([
            notification(to: latestApp, at: 8, offline: nil), notification(to: latestApp, at: 9, offline: nil),
        ])
        #expect(online.allSatisfy { $0.delivery == Delivery() })
        #expect(try await store.pendingNotifications(deviceID: owner, after: collapsed[1].id ?? 0, limit: 10).count == 2)

        // Unregistering discards what was pending for the token, and only that.
        #expect(try await store.retireDevice(latestApp.token, as: .unregistered, at: now))
        #expect(try await store.notification(id: online[1].uniqueID)?.delivery.discardReason == .unregistered)
        #expect(
            try await store.pendingNotifications(deviceID: owner, after: 0, limit: 100).map(\.uniqueID)
                == [all[3], all[4], collapsed[1]].map(\.uniqueID))
    }

    static func deliveryStates(_ store: any Store) async throws {
        let owner = "device-\(UUID().uuidString)"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let app = try await store.register(owner: owner, bundleID: "com.example.a", environment: .development, at: now)
        let committed = try await store.insertNotifications((1...4).map { notification(to: app, at: Double($0), offline: nil) })
        let ids = committed.compactMap(\.id)
        try await store.markDelivered([ids[0], ids[3]], at: now.addingTimeInterval(10))
        try await store.discardNotifications([ids[1]], reason: .expired, at: now.addingTimeInterval(11))
        // Neither changes a notification that is no longer pending.
        try await store.discardNotifications([ids[0]], reason: .expired, at: now.addingTimeInterval(12))
        try await store.markDelivered([ids[1]], at: now.addingTimeInterval(12))

        for index in [0, 3] {
            let delivered = try await store.notification(id: committed[index].uniqueID)
            #expect(delivered?.delivery == Delivery(state: .delivered, deliveredAt: now.addingTimeInterval(10)))
        }
        let discarded = try await store.notification(id: committed[1].uniqueID)
        #expect(discarded?.delivery == Delivery(state: .discarded, discardedAt: now.addingTimeInterval(11), discardReason: .expired))
        #expect(try await store.pendingNotifications(deviceID: owner, after: 0, limit: 10).map(\.id) == [ids[2]])
    }

    /// A device's response is kept with its own notification (the latest one wins); another device cannot record one.
    static func responses(_ store: any Store) async throws {
        let owner = "device-\(UUID().uuidString)"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let app = try await store.register(owner: owner, bundleID: "com.example.a", environment: .development, at: now)
        let sent = try await store.insertNotifications([notification(to: app, at: 1, offline: nil)])[0]
        #expect(try await store.notification(id: sent.uniqueID)?.response == nil)

        let forged = NotificationResponse(action: "FORGED", at: now)
        #expect(try await store.recordResponse(forged, uniqueID: sent.uniqueID, deviceID: "another-device") == false)
        #expect(try await store.recordResponse(forged, uniqueID: UUID(), deviceID: owner) == false)

        let opened = NotificationResponse(action: "com.apple.UNNotificationDefaultActionIdentifier", at: now.addingTimeInterval(5))
        #expect(try await store.recordResponse(opened, uniqueID: sent.uniqueID, deviceID: owner))
        #expect(try await store.notification(id: sent.uniqueID)?.response == opened)
        let replied = NotificationResponse(action: "REPLY", text: "On my way", at: now.addingTimeInterval(9))
        #expect(try await store.recordResponse(replied, uniqueID: sent.uniqueID, deviceID: owner))
        #expect(try await store.notification(id: sent.uniqueID)?.response == replied)
    }
}
