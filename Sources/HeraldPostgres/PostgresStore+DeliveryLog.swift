import Foundation
public import HeraldStore
import NIOCore
import PostgresNIO

/// The delivery log's pages, each one statement that walks index ranges and stops at the page's end, so a page costs
/// about the same with a thousand notifications stored as with millions (a test checks the plans and the pages read).
extension PostgresStore {
    public func notifications(matching query: NotificationQuery, before id: Int64?, limit: Int) async throws(StoreError) -> [StoredNotification] {
        try await notifications(matching: query, before: id, limit: limit, tokenBudget: Self.tokenBudget)
    }

    /// Tokens a prefix search visits one by one before it takes the newest of the whole range at once instead. A visit
    /// costs about 15 µs (a million notifications to 4,000 tokens: a prefix of 250 tokens answers in 4 ms; past the
    /// budget, in about 1).
    static let tokenBudget = 200

    func notifications(
        matching query: NotificationQuery, before id: Int64?, limit: Int, tokenBudget: Int
    ) async throws(StoreError) -> [StoredNotification] {
        guard limit > 0 else { return [] }
        let before = id ?? .max
        switch query {
        case .all:
            return try await rows("read the delivery log", Self.logPage, PostgresBindings(before, limit), Self.notification(from:))
        case .id(let uuid):
            return try await rows(
                "search the delivery log by id", Self.logByID, PostgresBindings(ByteBuffer(bytes: uuid.bytes), before, limit),
                Self.notification(from:))
        case .deviceTokenPrefix(let prefix):
            guard let range = TokenRange(prefix: prefix) else { return [] }
            return try await rows(
                "read the delivery log by device token", Self.logByTokenRange,
                PostgresBindings(range.lower, range.upper, before, limit, tokenBudget), Self.notification(from:))
        }
    }

    /// Every notification below an id, newest first (arguments: the id, the limit): the primary key backwards.
    static let logPage = "SELECT \(notificationColumns) FROM notification WHERE id < $1 ORDER BY id DESC LIMIT $2"

    /// By apns-id or apns-unique-id (arguments: its 16 bytes, the id, the limit): the newest with that apns-id from
    /// `notification_apns_id`, which holds them in id order, and the one with that unique id.
    static let logByID = """
        SELECT \(notificationColumns) FROM notification
        WHERE id IN (
            (SELECT id FROM notification WHERE apns_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3)
            UNION
            (SELECT id FROM notification WHERE unique_id = $1 AND id < $2)
        )
        ORDER BY id DESC LIMIT $3
        """

    /// By token prefix (arguments: the range's ends, the id, the limit, the token budget), as the SQLite store's walk.
    ///
    /// A prefix may cover many tokens, and sorting every notification they have would cost a busy token's whole
    /// history. So `walk` visits the tokens in the range one by one in `notification_token` (a seek each, past the
    /// current token's entries), carrying the page so far: from each token it takes only the ids that can still make the
    /// page (above the page's last once it is full), a seek and at most `limit` entries. Past the budget (a short prefix
    /// over very many tokens) the walk stops, and the page is the newest of the whole range at once; PostgreSQL then
    /// picks between the primary key backwards (a prefix that common is in most pages of recent rows) and the range of
    /// `notification_token` with a top-`limit` sort.
    static let logByTokenRange = """
        WITH RECURSIVE walk(token, page, visited) AS (
            SELECT first.device_token,
                   ARRAY(SELECT n.id FROM notification n WHERE n.device_token = first.device_token AND n.id < $3
                         ORDER BY n.id DESC LIMIT $4),
                   1
            FROM (SELECT device_token FROM notification WHERE device_token >= $1 AND device_token < $2
                  ORDER BY device_token LIMIT 1) AS first
            UNION ALL
            SELECT next.device_token,
                   ARRAY(SELECT merged.id FROM (
                             SELECT unnest(walk.page) AS id
                             UNION ALL
                             (SELECT n.id FROM notification n
                              WHERE n.device_token = next.device_token AND n.id < $3 AND n.id > coalesce(walk.page[$4], 0)
                              ORDER BY n.id DESC LIMIT $4)
                         ) AS merged
                         ORDER BY merged.id DESC LIMIT $4),
                   walk.visited + 1
            FROM walk
            CROSS JOIN LATERAL (
                SELECT n.device_token FROM notification n WHERE n.device_token > walk.token AND n.device_token < $2
                ORDER BY n.device_token LIMIT 1
            ) AS next
            WHERE walk.visited <= $5
        ),
        last AS (SELECT page, visited FROM walk ORDER BY visited DESC LIMIT 1),
        ids AS (
            SELECT unnest(page) AS id FROM last WHERE visited <= $5
            UNION ALL
            (SELECT n.id FROM notification n
             WHERE n.device_token >= $1 AND n.device_token < $2 AND n.id < $3 AND (SELECT visited FROM last) > $5
             ORDER BY n.id DESC LIMIT $4)
        )
        SELECT \(notificationColumns) FROM notification WHERE id IN (SELECT id FROM ids) ORDER BY id DESC
        """
}
