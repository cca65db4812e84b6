import ArgumentParser
import Foundation
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The console's delivery log over a large store: a SQLite store in a temporary directory is filled with
/// notifications spread over many device tokens, then each kind of lookup is timed many times, in the store and
/// through `GET /v1/notifications` on a gateway running in this process over that store.
struct LogLookups: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Delivery-log lookups in a SQLite store of N notifications (default 1,000,000): p50/p99/max by id, token prefix, page."
    )

    @Option(help: "Notifications in the store.")
    var notifications = 1_000_000

    @Option(help: "Device tokens the notifications are spread over.")
    var tokens = 1_000

    @Option(help: "Lookups of each kind.")
    var lookups = 1_000

    @Option(help: "Notifications per committed batch while filling.")
    var batch = 1_000

    @Flag(name: .customLong("skip-http"), help: "Time the store only, not the HTTP API.")
    var skipHTTP = false

    func validate() throws {
        guard notifications > 0, tokens > 0, lookups > 0, batch > 0 else {
            throw ValidationError("--notifications, --tokens, --lookups and --batch must be positive")
        }
    }

    /// A notification the lookups look for: its ids and its token.
    private struct Sample {
        var apnsID: UUID
        var uniqueID: UUID
        var logID: Int64
        var token: DeviceToken
    }

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-log-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = scratch.appendingPathComponent("herald.sqlite").path
        let store = try SQLiteStore(path: path)
        let samples = try await fill(store)
        print("lookups: \(lookups) of each, at random points of the log; a page is 50 (51 read, to know whether more follow)")

        var rows: [(String, Percentiles)] = []
        func measure(_ name: String, _ body: (Sample) async throws -> Int) async throws {
            var durations: [Duration] = []
            var found = 0
            for _ in 0..<lookups {
                let sample = samples.randomElement()!
                let start = ContinuousClock.now
                found += try await body(sample)
                durations.append(ContinuousClock.now - start)
            }
            guard found > 0 else { throw BenchError("\(name): no lookup found anything") }
            rows.append((name, Percentiles(durations)))
        }
        let page = 51
        try await measure("notification(id:) by apns-id") { try await store.notification(id: $0.apnsID) == nil ? 0 : 1 }
        try await measure("log by apns-id") { try await store.notifications(matching: .id($0.apnsID), before: nil, limit: page).count }
        try await measure("log by apns-unique-id") { try await store.notifications(matching: .id($0.uniqueID), before: nil, limit: page).count }
        try await measure("log by whole token") {
            try await store.notifications(matching: .deviceTokenPrefix($0.token.hex), before: nil, limit: page).count
        }
        for digits in [4, 2, 1] {
            try await measure("log by token prefix, \(digits) hex digit\(digits == 1 ? "" : "s")") {
                try await store.notifications(matching: .deviceTokenPrefix(String($0.token.hex.prefix(digits))), before: nil, limit: page).count
            }
        }
        try await measure("log by 2-digit prefix, deep page") {
            try await store.notifications(matching: .deviceTokenPrefix(String($0.token.hex.prefix(2))), before: $0.logID, limit: page).count
        }
        try await measure("log, first page") { _ in try await store.notifications(matching: .all, before: nil, limit: page).count }
        try await measure("log, deep page by cursor") { try await store.notifications(matching: .all, before: $0.logID, limit: page).count }
        Self.printTable("in the store (SQLiteStore, one task)", rows)

        guard !skipHTTP else { return }
        rows = []
        let gateway = try await TestGateway.start(store: store)
        let port = try await gateway.gateway.consolePort()
        let token = gateway.gateway.adminToken
        func get(_ query: String) async throws -> Int {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/notifications?\(query)")!)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError("GET /v1/notifications?\(query) failed") }
            return data.count > 40 ? 1 : 0
        }
        try await measure("GET ?q=APNS-ID") { try await get("q=\(APNsID.format($0.apnsID))") }
        try await measure("GET ?q=UNIQUE-ID") { try await get("q=\(APNsID.format($0.uniqueID))") }
        try await measure("GET ?q=TOKEN (50 a page)") { try await get("q=\($0.token.hex)") }
        try await measure("GET ?q=2-digit prefix (50 a page)") { try await get("q=\($0.token.hex.prefix(2))") }
        try await measure("GET (first page, 50)") { _ in try await get("") }
        try await measure("GET ?before=ID (deep page, 50)") { try await get("before=\($0.logID)") }
        Self.printTable("through GET /v1/notifications (HTTP/1.1 on loopback, JSON with timelines)", rows)
        try await gateway.stop()
    }

    /// Fills the store in committed batches, as the gateway does, and keeps about a thousand notifications to look for.
    private func fill(_ store: SQLiteStore) async throws -> [Sample] {
        let tokenList = (0..<tokens).map { _ in DeviceToken.random() }
        let payload = Data(#"{"aps":{"alert":{"title":"Benchmark","body":"Hello from herald-bench log"},"badge":1},"id":42}"#.utf8)
        let start = ContinuousClock.now
        let base = Date().timeIntervalSince1970 - Double(notifications) / 1000
        var samples: [Sample] = []
        var written = 0
        while written < notifications {
            let next = (written..<min(written + batch, notifications)).map { index in
                // As the gateway makes them: a provider's apns-id (random, here), a time-ordered unique id.
                StoredNotification(
                    apnsID: UUID(), uniqueID: APNsID.generate(), deviceToken: tokenList[index % tokenList.count], bundleID: "com.example.bench",
                    topic: "com.example.bench", pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: payload,
                    receivedAt: Date(timeIntervalSince1970: base + Double(index) / 1000)
                )
            }
            let committed = try await store.insertNotifications(next)
            for notification in committed {
                guard let id = notification.id, id % Int64(max(1, notifications / 1000)) == 0 else { continue }
                samples.append(Sample(apnsID: notification.apnsID, uniqueID: notification.uniqueID, logID: id, token: notification.deviceToken))
            }
            written += next.count
            // The gateway's maintenance beat indexes tokens for the log every 200 ms; here every 50,000 rows.
            if written % 50_000 == 0 {
                try await store.maintain()
                try await store.indexTokens()
            }
            if written % 100_000 == 0 { print("  \(written) notifications stored") }
        }
        try await store.maintain()
        try await store.indexTokens()
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "filled: \(notifications) notifications over \(tokens) device tokens in \(String(format2: seconds)) s "
                + "(\(Int(Double(notifications) / seconds))/s, batches of \(batch), each committed with synchronous=FULL)")
        return samples
    }

    private static func printTable(_ title: String, _ rows: [(String, Percentiles)]) {
        print("\n\(title)")
        let width = max(36, (rows.map(\.0.count).max() ?? 0) + 2)
        func padded(_ text: String, _ length: Int) -> String { text + String(repeating: " ", count: max(0, length - text.count)) }
        func right(_ text: String) -> String { String(repeating: " ", count: max(0, 9 - text.count)) + text }
        print(padded("lookup", width) + right("p50 ms") + right("p99 ms") + right("max ms"))
        for (name, stats) in rows {
            print(
                padded(name, width) + right(Percentiles.milliseconds(stats.at(0.5))) + right(Percentiles.milliseconds(stats.at(0.99)))
                    + right(Percentiles.milliseconds(stats.at(1))))
        }
    }
}
