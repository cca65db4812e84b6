package import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// What an app does with what the daemon hands it.
package struct AppEventHandlers: Sendable {
    /// A notification arrived while the app runs: how to present it.
    package var willPresent: @Sendable (NotificationRecord) async -> UNNotificationPresentationOptions
    /// A response or a background push; returns once the app's handler has run.
    package var event: @Sendable (AppEventRecord) async -> Void
    /// A change to the app's Live Activities or its push-to-start token (ActivityKit).
    package var activity: @Sendable (DaemonQuestion) async -> Void

    package init(
        willPresent: @escaping @Sendable (NotificationRecord) async -> UNNotificationPresentationOptions,
        event: @escaping @Sendable (AppEventRecord) async -> Void,
        activity: @escaping @Sendable (DaemonQuestion) async -> Void = { _ in }
    ) {
        self.willPresent = willPresent
        self.event = event
        self.activity = activity
    }
}

/// An app's engine when the device daemon runs: every call goes over the daemon's socket, and the daemon asks
/// the app how to present notifications and hands it responses and background pushes. Reconnects (and says
/// again what the app handles) when the daemon restarts.
package final class DaemonClient: NotificationEngine {
    private let path: String
    private let state = Mutex(State())

    private struct State {
        var connecting: Task<DaemonConversation?, Never>?
        var handlers: AppEventHandlers?
        var attached = (delegate: false, remoteNotifications: false)
        /// Live Activity types watched (ActivityKit), asked for again on a new connection.
        var watchedActivityTypes: Set<String> = []
    }

    package init(path: String) {
        self.path = path
    }

    package func setHandlers(_ handlers: AppEventHandlers) {
        state.withLock { $0.handlers = handlers }
    }

    /// Tells the daemon what the app handles now; queued responses and background pushes follow.
    package func attach(delegate: Bool, remoteNotifications: Bool) async throws(UNError) {
        state.withLock { $0.attached = (delegate, remoteNotifications) }
        _ = try await call(.attach(delegate: delegate, remoteNotifications: remoteNotifications))
    }

    /// Watches the app's Live Activities of one type: changes come to the handlers' `activity`. Returns what there is now.
    package func watchActivities(ofType type: String) async throws(UNError) -> ActivitySnapshot {
        state.withLock { _ = $0.watchedActivityTypes.insert(type) }
        guard case .activities(let snapshot) = try await call(.activities(attributesType: type, watch: true)) else { throw Self.unexpected }
        return snapshot
    }

    /// The app's device token (hex) from the gateway.
    package func registerForRemoteNotifications() async throws(UNError) -> String {
        guard case .deviceToken(let token) = try await call(.registerForRemoteNotifications) else { throw Self.unexpected }
        return token
    }

    // MARK: NotificationEngine

    package func settings(of bundleID: String) async throws(UNError) -> SettingsRecord {
        guard case .settings(let settings) = try await call(.settings) else { throw Self.unexpected }
        return settings
    }

    package func requestAuthorization(of bundleID: String, options: UNAuthorizationOptions) async throws(UNError) -> Bool {
        guard case .granted(let granted) = try await call(.requestAuthorization(options: options.rawValue)) else { throw Self.unexpected }
        return granted
    }

    /// The daemon fires a request without a trigger itself (asking this app how to present it), so nothing
    /// comes back to fire here.
    package func add(_ request: RequestRecord, of bundleID: String, now: Date) async throws(UNError) -> LocalEngine.Fired? {
        _ = try await call(.add(request: request))
        return nil
    }

    package func pending(of bundleID: String) async throws(UNError) -> [RequestRecord] {
        guard case .requests(let requests) = try await call(.pending) else { throw Self.unexpected }
        return requests
    }

    package func removePending(of bundleID: String, identifiers: [String]?) async throws(UNError) {
        _ = try await call(.removePending(identifiers: identifiers))
    }

    package func delivered(of bundleID: String) async throws(UNError) -> [NotificationRecord] {
        guard case .notifications(let notifications) = try await call(.delivered) else { throw Self.unexpected }
        return notifications
    }

    package func removeDelivered(of bundleID: String, identifiers: [String]?) async throws(UNError) {
        _ = try await call(.removeDelivered(identifiers: identifiers))
    }

    package func categories(of bundleID: String) async throws(UNError) -> [CategoryRecord] {
        guard case .categories(let categories) = try await call(.categories) else { throw Self.unexpected }
        return categories
    }

    package func setCategories(_ categories: [CategoryRecord], of bundleID: String) async throws(UNError) {
        _ = try await call(.setCategories(categories: categories))
    }

    package func setBadge(_ count: Int, of bundleID: String) async throws(UNError) {
        _ = try await call(.setBadge(count: count))
    }

    // MARK: The connection

    private static let unexpected = UNError(.notificationsNotAllowed, "the device daemon answered with something unexpected")

    /// Makes a call, connecting first if needed.
    package func call(_ call: DaemonCall) async throws(UNError) -> DaemonResult {
        guard let conversation = await conversation() else {
            throw UNError(.notificationsNotAllowed, "the device daemon at \(path) is not reachable; is `herald device` still running?")
        }
        switch await conversation.request({ .call(id: $0, call: call) }) {
        case .result(_, let result)?:
            return result
        case .failure(_, _, let message, let store?, _)?:
            throw UNError(storeFailure: NotificationStoreError(NotificationStoreError.Code(rawValue: store), message))
        case .failure(_, let code, let message, nil, _)?:
            throw UNError(UNError.Code(rawValue: code) ?? .notificationsNotAllowed, message)
        default:
            throw UNError(.notificationsNotAllowed, "the device daemon closed the connection before answering")
        }
    }

    private func conversation() async -> DaemonConversation? {
        let task = state.withLock { state in
            if let connecting = state.connecting { return connecting }
            let task = Task { await connect() }
            state.connecting = task
            return task
        }
        if let conversation = await task.value, !conversation.isClosed { return conversation }
        // Closed or never opened: the next call tries again.
        state.withLock { state in
            if state.connecting == task { state.connecting = nil }
        }
        return nil
    }

    private func connect() async -> DaemonConversation? {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.daemonLines() }
                }
        } catch {
            return nil
        }
        let opened = Mutex<DaemonConversation?>(nil)
        let ready = AsyncStream.makeStream(of: DaemonConversation.self)
        Task.detached { [self] in
            try? await channel.executeThenClose { inbound, outbound in
                let conversation = DaemonConversation(outbound: outbound)
                opened.withLock { $0 = conversation }
                ready.continuation.yield(conversation)
                ready.continuation.finish()
                try await withThrowingDiscardingTaskGroup { group in
                    for try await line in inbound {
                        guard let message = try? DaemonMessage.decode(Data(line.readableBytesView)) else { continue }
                        if conversation.deliver(message) { continue }
                        if case .ask(let id, let question) = message {
                            group.addTask { await self.answer(question, id: id, on: conversation) }
                        }
                    }
                }
            }
            opened.withLock { $0 }?.close()
            ready.continuation.finish()
        }
        var iterator = ready.stream.makeAsyncIterator()
        guard let conversation = await iterator.next() else { return nil }
        // Say again what the app handles (after a daemon restart, this is a new connection).
        let (attached, watched) = state.withLock { ($0.attached, $0.watchedActivityTypes) }
        if attached.delegate || attached.remoteNotifications {
            _ = await conversation.request {
                .call(id: $0, call: .attach(delegate: attached.delegate, remoteNotifications: attached.remoteNotifications))
            }
        }
        for type in watched.sorted() {
            _ = await conversation.request { .call(id: $0, call: .activities(attributesType: type, watch: true)) }
        }
        return conversation
    }

    private func answer(_ question: DaemonQuestion, id: Int, on conversation: DaemonConversation) async {
        let handlers = state.withLock { $0.handlers }
        switch question {
        case .willPresent(let notification):
            let options = await handlers?.willPresent(notification) ?? []
            await conversation.send(.answer(id: id, options: options.rawValue))
        case .event(let event):
            await handlers?.event(event)
            await conversation.send(.answer(id: id, options: 0))
        case .activity, .pushToStartToken:
            await handlers?.activity(question)
            await conversation.send(.answer(id: id, options: 0))
        }
    }
}
