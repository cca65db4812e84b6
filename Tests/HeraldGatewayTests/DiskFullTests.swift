import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// A gateway whose data dir fills up (a real tmpfs of a few MiB, filled to the last byte): providers get 503
/// ServiceUnavailable, never 200 for what was not stored; the log says so once; once space returns the gateway
/// takes notifications again by itself, and everything answered 200 is in the store.
@Suite(.enabled(if: SmallFilesystem.unavailableReason == nil, "mounting a tmpfs is not permitted here (needs root, as on CI)"))
struct DiskFullTests {
    /// A payload near APNs' 4 KB limit, so a few hundred fill the disk.
    static let largeBody = Data(#"{"aps":{"alert":"\#(String(repeating: "x", count: 3800))"}}"#.utf8)

    @Test func aFullDiskGets503UntilSpaceReturnsAndLosesNothingAnswered200() async throws {
        let disk = try SmallFilesystem(size: 4 << 20)
        defer { disk.unmount() }
        let path = disk.path + "/herald.sqlite"
        let logs = LogCapture()
        let gateway = try await TestGateway.start(store: try SQLiteStore(path: path, busyTimeout: .seconds(1)), logger: logs.logger())
        let connection = try await gateway.connect()
        var push = try await gateway.push()
        push.body = Self.largeBody
        var accepted: [UUID] = []
        func send() async throws -> APNsResponse {
            let response = try await connection.send(push)
            if response.status == 200, let id = response.apnsID.flatMap(UUID.init(uuidString:)) { accepted.append(id) }
            return response
        }
        for _ in 0..<20 { #expect(try await send().status == 200) }

        try disk.fill()
        var refused: [APNsResponse] = []
        for _ in 0..<2_000 where refused.count < 30 {
            let response = try await send()
            if response.status != 200 { refused.append(response) }
        }
        #expect(refused.count == 30, "a full disk must refuse notifications")
        for response in refused {
            #expect(response.status == 503)
            #expect(response.reason == .serviceUnavailable)
        }
        #expect(logs.text.occurrences(of: "notification commits failing") == 1, "logged once, not per request")

        disk.free()
        #expect(try await send().status == 200, "space returned: the gateway takes notifications again")
        #expect(logs.text.occurrences(of: "notification commits work again") == 1)
        for id in accepted {
            #expect(try await gateway.store.notification(id: id) != nil, "answered 200, so stored")
        }
        await connection.close()
        try await gateway.stop()

        // And in the file, as a restart reads it.
        let reopened = try SQLiteStore(path: path)
        for id in accepted { #expect(try await reopened.notification(id: id) != nil) }
    }

    /// Linux refuses to make a filesystem read-only while a file on it is open for writing, so a data dir turns
    /// read-only under Herald only between runs: the store then refuses to open, saying where, and opens again
    /// with its data once the directory is writable.
    @Test func aReadOnlyDataDirRefusesToOpenAndOpensWithItsDataOnceWritable() async throws {
        let disk = try SmallFilesystem(size: 4 << 20)
        defer { disk.unmount() }
        let path = disk.path + "/herald.sqlite"
        let id = UUID()
        do {
            let store = try SQLiteStore(path: path)
            let token = DeviceToken.random()
            try await store.saveDevice(DeviceRecord(token: token, topic: "com.example.app", environment: .development, createdAt: Date()))
            _ = try await store.insertNotifications([
                StoredNotification(
                    apnsID: id, uniqueID: UUID(), deviceToken: token, bundleID: "com.example.app", topic: "com.example.app",
                    pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: Data(#"{"aps":{}}"#.utf8),
                    receivedAt: Date())
            ])
        }
        #expect(throws: SmallFilesystem.Failure.self, "read-only is refused while a file is open for writing") {
            let held = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? held.close() }
            try disk.remount(readOnly: true)
        }
        try disk.remount(readOnly: true)
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(error?.description.contains(path) == true)

        try disk.remount(readOnly: false)
        let store = try SQLiteStore(path: path)
        #expect(try await store.notification(id: id) != nil)
    }
}

extension String {
    func occurrences(of part: String) -> Int { components(separatedBy: part).count - 1 }
}
