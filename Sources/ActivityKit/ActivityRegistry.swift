import Foundation
import Synchronization
import UserNotifications

/// The process's view of its Live Activities: what the daemon said of each type the app asked about, kept current by a
/// watching connection, and the streams ActivityKit's async sequences read.
final class ActivityRegistry: Sendable {
    static let shared = ActivityRegistry(path: DaemonSocket.path(dataDirectory: AppIdentity.dataDirectory()))

    /// What a stream is told.
    enum Update: Sendable {
        /// An activity changed; `isNew` the first time this process hears of it.
        case activity(ActivityRecord, isNew: Bool)
        case pushToStartToken(String)
    }

    private struct State {
        var snapshots: [String: ActivitySnapshot] = [:]
        var records: [String: ActivityRecord] = [:]
        var streams: [UUID: AsyncStream<Update>.Continuation] = [:]
        var watching: Set<String> = []
    }

    let path: String
    private let state = Mutex(State())
    private let client: DaemonClient

    init(path: String) {
        self.path = path
        client = DaemonClient(path: path)
        client.setHandlers(
            AppEventHandlers(willPresent: { _ in [] }, event: { _ in }) { [weak self] question in
                switch question {
                case .activity(let record): self?.apply(record)
                case .pushToStartToken(let token): self?.apply(pushToStartToken: token)
                default: break
                }
            })
    }

    /// The daemon's snapshot of one type, asked for once (synchronously), then kept current by a watch.
    func snapshot(ofType type: String) throws(ActivityAuthorizationError) -> ActivitySnapshot {
        if let known = state.withLock({ $0.snapshots[type] }) { return known }
        guard case .activities(let snapshot) = try DaemonLine.call(.activities(attributesType: type, watch: false), path: path) else {
            throw .persistenceFailure
        }
        state.withLock { state in
            state.snapshots[type] = snapshot
            for record in snapshot.activities where state.records[record.id] == nil { state.records[record.id] = record }
        }
        watch(type)
        return snapshot
    }

    /// The activities of one type not yet dismissed, oldest first.
    func activities(ofType type: String) -> [ActivityRecord] {
        guard (try? snapshot(ofType: type)) != nil else { return [] }
        return state.withLock { state in
            state.records.values.filter { $0.attributesType == type && $0.phase != "dismissed" }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    func record(_ id: String) -> ActivityRecord? {
        state.withLock { $0.records[id] }
    }

    func pushToStartToken(ofType type: String) -> String? {
        (try? snapshot(ofType: type))?.pushToStartToken
    }

    /// Starts an activity (the daemon decides), and records it.
    func request(_ request: ActivityRequestRecord) throws(ActivityAuthorizationError) -> ActivityRecord {
        _ = try snapshot(ofType: request.attributesType)
        guard case .activity(let record) = try DaemonLine.call(.requestActivity(request), path: path) else { throw .persistenceFailure }
        apply(record)
        return record
    }

    /// An update or end; what the daemon answers comes back as a change.
    func change(_ change: ActivityChangeRecord) async {
        _ = try? await client.call(.changeActivity(change))
    }

    /// A stream of every update from now on.
    func updates() -> AsyncStream<Update> {
        let (stream, continuation) = AsyncStream.makeStream(of: Update.self)
        let id = UUID()
        state.withLock { $0.streams[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.streams.removeValue(forKey: id) } }
        return stream
    }

    private func watch(_ type: String) {
        guard state.withLock({ $0.watching.insert(type).inserted }) else { return }
        let client = self.client
        Task { [weak self] in
            guard let snapshot = try? await client.watchActivities(ofType: type) else { return }
            for record in snapshot.activities { self?.apply(record) }
        }
    }

    private func apply(_ record: ActivityRecord) {
        let (isNew, changed, streams) = state.withLock { state in
            let old = state.records[record.id]
            state.records[record.id] = record
            return (old == nil, old != record, Array(state.streams.values))
        }
        guard changed else { return }
        for stream in streams { stream.yield(.activity(record, isNew: isNew)) }
    }

    private func apply(pushToStartToken token: String) {
        let streams = state.withLock { state in
            for type in state.snapshots.keys { state.snapshots[type]?.pushToStartToken = token }
            return Array(state.streams.values)
        }
        for stream in streams { stream.yield(.pushToStartToken(token)) }
    }
}
