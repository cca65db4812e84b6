import Foundation
import HeraldStore
import HeraldWire
import Testing

extension StoreConformance {
    /// The delivery log: every notification newest first, page after page by cursor; by apns-id (several may share
    /// one) or apns-unique-id; by device-token prefix, over however many tokens the prefix covers.
    static func deliveryLog(_ store: any Store) async throws {
        // Tokens chosen for their starts: two share "abcd", five share "ab"; "ab9f…" and "aba0…" lie either side
        // of where the range "ab9" covers ends.
        let starts = ["abcd01", "abcd02", "ab00", "ab9f", "aba0", "ff00"]
        let tokens = try starts.map { try #require(DeviceToken(hex: $0 + String(repeating: "5", count: 64 - $0.count))) }
        let sharedAPNsID = UUID()
        var batch = (0..<36).map { (index: Int) -> StoredNotification in
            let apnsID = index == 5 || index == 30 ? sharedAPNsID : UUID()
            let receivedAt = Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
            return StoredNotification(
                apnsID: apnsID, uniqueID: UUID(), deviceToken: tokens[index % tokens.count], bundleID: "com.example.log",
                topic: "com.example.log", pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil,
                payload: Data(#"{"aps":{"alert":"n\#(index)"}}"#.utf8), receivedAt: receivedAt
            )
        }
        // One notification's apns-id is another's unique id: a search by it finds both.
        batch[20].apnsID = batch[3].uniqueID
        var committed: [StoredNotification] = []
        for start in stride(from: 0, to: batch.count, by: 12) {
            committed += try await store.insertNotifications(Array(batch[start..<start + 12]))
        }
        let ids = committed.compactMap(\.id)
        try await store.markDelivered([ids[35]], at: Date(timeIntervalSince1970: 1_700_000_100))
        try await store.discardNotifications([ids[34]], reason: .expired, at: Date(timeIntervalSince1970: 1_700_000_101))
        // As the store has them now, delivery states included.
        var current = committed
        current[35].delivery = Delivery(state: .delivered, storedAt: current[35].receivedAt, deliveredAt: Date(timeIntervalSince1970: 1_700_000_100))
        current[34].delivery = Delivery(
            state: .discarded, storedAt: current[34].receivedAt, discardedAt: Date(timeIntervalSince1970: 1_700_000_101), discardReason: .expired)
        let newestFirst = Array(current.reversed())

        // Every notification, page after page.
        #expect(try await everyPage(of: .all, in: store, limit: 10) == newestFirst)
        #expect(try await store.notifications(matching: .all, before: ids[10], limit: 3) == [current[9], current[8], current[7]])
        #expect(try await store.notifications(matching: .all, before: nil, limit: 0).isEmpty)

        // By id: both notifications with the shared apns-id; one by its unique id; both where one's apns-id is the
        // other's unique id.
        #expect(try await store.notifications(matching: .id(sharedAPNsID), before: nil, limit: 50) == [current[30], current[5]])
        #expect(try await store.notifications(matching: .id(sharedAPNsID), before: nil, limit: 1) == [current[30]])
        #expect(try await store.notifications(matching: .id(sharedAPNsID), before: ids[30], limit: 50) == [current[5]])
        #expect(try await store.notifications(matching: .id(current[7].uniqueID), before: nil, limit: 50) == [current[7]])
        #expect(try await store.notifications(matching: .id(current[7].uniqueID), before: ids[7], limit: 50).isEmpty)
        #expect(try await store.notifications(matching: .id(current[3].uniqueID), before: nil, limit: 50) == [current[20], current[3]])
        #expect(try await store.notifications(matching: .id(current[3].uniqueID), before: nil, limit: 1) == [current[20]])
        #expect(try await store.notifications(matching: .id(UUID()), before: nil, limit: 50).isEmpty)

        // By token prefix, page after page: a page takes the newest across every token the prefix covers.
        func sent(to indexes: Set<Int>) -> [StoredNotification] {
            newestFirst.filter { notification in indexes.contains { tokens[$0] == notification.deviceToken } }
        }
        let expected: [(String, Set<Int>)] = [
            ("abcd", [0, 1]), ("abcd0", [0, 1]), (tokens[0].hex, [0]), ("ab", [0, 1, 2, 3, 4]), ("ab9", [3]), ("ab9f", [3]),
            ("aba", [4]), ("f", [5]), ("ff00", [5]), ("a", [0, 1, 2, 3, 4]),
        ]
        for (prefix, indexes) in expected {
            for limit in [1, 4, 50] {
                let found = try await everyPage(of: .deviceTokenPrefix(prefix), in: store, limit: limit)
                #expect(found == sent(to: indexes), "prefix \(prefix), \(limit) a page")
            }
        }
        #expect(try await store.notifications(matching: .deviceTokenPrefix("ab"), before: ids[12], limit: 2) == [current[10], current[9]])
        for nothing in ["0", "abce", "ab9e", tokens[0].hex + "0", "ABCD", "xyz", "", String(repeating: "a", count: 401)] {
            #expect(try await store.notifications(matching: .deviceTokenPrefix(nothing), before: nil, limit: 50).isEmpty, "\(nothing)")
        }
    }

    /// Every notification `query` matches, following each page's last id to the next page.
    private static func everyPage(of query: NotificationQuery, in store: any Store, limit: Int) async throws -> [StoredNotification] {
        var found: [StoredNotification] = []
        var cursor: Int64?
        while true {
            let page = try await store.notifications(matching: query, before: cursor, limit: limit)
            #expect(page.count <= limit)
            found += page
            guard page.count == limit, let last = page.last?.id else { return found }
            cursor = last
        }
    }
}
