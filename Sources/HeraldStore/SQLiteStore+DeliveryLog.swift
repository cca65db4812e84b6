import Foundation
import GRDB

/// The delivery log's pages. Every statement here walks an index over a range and stops at the page's end, so a
/// page costs about the same with a thousand notifications in the store as with millions (`herald-bench log`
/// measures it; a test checks each statement's query plan).
extension SQLiteStore {
    public func notifications(matching query: NotificationQuery, before id: Int64?, limit: Int) async throws(StoreError) -> [StoredNotification] {
        guard limit > 0 else { return [] }
        let before = id ?? .max
        switch query {
        case .all:
            return try await read("read the delivery log") { db in
                try Row.fetchAll(db.cachedStatement(sql: Self.logPage), arguments: [before, limit]).map(Self.notification(from:))
            }
        case .id(let uuid):
            let bytes = uuid.bytes
            return try await read("search the delivery log by id") { db in
                var page = try Row.fetchAll(db.cachedStatement(sql: Self.logByAPNsID), arguments: [bytes, before, limit])
                    .map(Self.notification(from:))
                // A unique id names one notification, which may also be in the page by its apns-id.
                if let unique = try Row.fetchOne(db.cachedStatement(sql: Self.logByUniqueID), arguments: [bytes, before]),
                    !page.contains(where: { $0.id == unique["id"] })
                {
                    page.append(try Self.notification(from: unique))
                    page.sort { ($0.id ?? 0) > ($1.id ?? 0) }
                    page.removeLast(max(0, page.count - limit))
                }
                return page
            }
        case .deviceTokenPrefix(let prefix):
            guard let range = TokenRange(prefix: prefix) else { return [] }
            let ids = try await logIDs(in: range, before: before, limit: limit)
            return try await read("read the delivery log by device token") { db in
                let byID = try db.cachedStatement(sql: Self.logRow)
                return try ids.compactMap { id in try Row.fetchOne(byID, arguments: [id]).map(Self.notification(from:)) }
            }
        }
    }

    /// The ids of the newest `limit` notifications below `before` to tokens in `range`, newest first: those in the
    /// token log, and those committed since it was last filled, from the table's newest rows.
    func logIDs(in range: TokenRange, before: Int64, limit: Int, tokenBudget: Int = 1_000) async throws(StoreError) -> [Int64] {
        let (indexed, older): (Int64, [Int64])
        do {
            (indexed, older) = try await tokenLog.pool.read { db in
                let indexed = try Int64.fetchOne(db, sql: TokenLog.indexedUpTo) ?? 0
                return (indexed, try Self.indexedLogIDs(in: range, before: min(before, indexed + 1), limit: limit, tokenBudget: tokenBudget, db))
            }
        } catch {
            throw StoreError.sqlite(error, cannot: "search the delivery log's device tokens")
        }
        let newest = try await read("search the delivery log's newest notifications") { db in
            try Int64.fetchAll(db.cachedStatement(sql: Self.logIDsNotYetIndexed), arguments: [indexed, before, range.lower, range.upper, limit])
        }
        return Array((newest + older).prefix(limit))
    }

    /// The ids in `token_log` of the newest `limit` notifications below `before` to tokens in `range`, newest first.
    ///
    /// A prefix may cover many tokens, and sorting every notification they have would cost a busy token's whole
    /// history. So the tokens in the range are visited one by one, a seek each, taking from each only the ids that
    /// can still make the page (above the page's last once it is full), a seek and at most `limit` index entries.
    /// Past `tokenBudget` tokens (a short prefix in a store of very many tokens, each with few notifications) the
    /// rest is one top-`limit` pass over the range's index entries, which then cost less than the seeks would.
    private static func indexedLogIDs(in range: TokenRange, before: Int64, limit: Int, tokenBudget: Int, _ db: Database) throws -> [Int64] {
        let next = try db.cachedStatement(sql: nextTokenInRange)
        let newest = try db.cachedStatement(sql: logIDsForToken)
        var page: [Int64] = []
        var token = try String.fetchOne(db.cachedStatement(sql: firstTokenInRange), arguments: [range.lower, range.upper])
        var visited = 0
        while let current = token {
            visited += 1
            guard visited <= tokenBudget else {
                return try Int64.fetchAll(db.cachedStatement(sql: logIDsInRange), arguments: [range.lower, range.upper, before, limit])
            }
            let floor = page.count == limit ? page[limit - 1] : 0
            let ids = try Int64.fetchAll(newest, arguments: [current, before, floor, limit])
            if !ids.isEmpty { page = Array((page + ids).sorted(by: >).prefix(limit)) }
            token = try String.fetchOne(next, arguments: [current, range.upper])
        }
        return page
    }

    // The statements (internal, so that a test can check how SQLite plans each).

    /// Every notification below an id, newest first (arguments: the id, the limit).
    static let logPage = "SELECT * FROM notification WHERE id < ? ORDER BY id DESC LIMIT ?"
    /// By apns-id (arguments: its 16 bytes, the id, the limit): `notification_apns_id` holds the row ids in order.
    static let logByAPNsID = "SELECT * FROM notification WHERE apns_id = ? AND id < ? ORDER BY id DESC LIMIT ?"
    /// By apns-unique-id (arguments: its 16 bytes, the id).
    static let logByUniqueID = "SELECT * FROM notification WHERE unique_id = ? AND id < ?"
    /// The newest ids between two to tokens in a range, from the table (arguments: the lower id, the upper id, the
    /// range's ends, the limit): the rows not yet in `token_log`, a few hundred milliseconds' worth.
    static let logIDsNotYetIndexed =
        "SELECT id FROM notification WHERE id > ? AND id < ? AND device_token >= ? AND device_token < ? ORDER BY id DESC LIMIT ?"
    /// The first token in a range (arguments: the range's ends).
    static let firstTokenInRange =
        "SELECT device_token FROM token_log WHERE device_token >= ? AND device_token < ? ORDER BY device_token LIMIT 1"
    /// The token after one, in a range (arguments: the token, the range's upper end).
    static let nextTokenInRange =
        "SELECT device_token FROM token_log WHERE device_token > ? AND device_token < ? ORDER BY device_token LIMIT 1"
    /// A token's newest ids between two (arguments: the token, the upper id, the lower id, the limit).
    static let logIDsForToken = "SELECT id FROM token_log WHERE device_token = ? AND id < ? AND id > ? ORDER BY id DESC LIMIT ?"
    /// The newest ids below an id of every token in a range (arguments: the range's ends, the id, the limit): a pass
    /// over the range's entries and a top-`limit` sort.
    static let logIDsInRange =
        "SELECT id FROM token_log WHERE device_token >= ? AND device_token < ? AND id < ? ORDER BY id DESC LIMIT ?"
    /// One notification by its id.
    static let logRow = "SELECT * FROM notification WHERE id = ?"
}
