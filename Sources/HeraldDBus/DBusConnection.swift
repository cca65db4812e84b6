import CSystemd
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A connection to a D-Bus bus through sd-bus (libsystemd), for callers on any thread or task.
///
/// sd-bus is not thread-safe, so the connection owns one thread that does everything with the bus: callers post
/// work to it and wake it through an eventfd, and it waits in poll(2) on the bus and that eventfd. Nothing a caller
/// does ever blocks on the bus: a method call suspends its task until the reply comes (or the bus goes).
///
/// ```swift
/// let bus = try await DBusConnection.connect(address: address)
/// let reply = try await bus.call(
///     destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
///     interface: "org.freedesktop.Notifications", member: "GetCapabilities")
/// ```
package final class DBusConnection: Sendable {
    /// The address connected to (`unix:path=/run/user/1000/bus`).
    package let address: String
    /// The name the bus gave this connection (`:1.42`).
    package let uniqueName: String
    private let mailbox: BusMailbox

    private init(address: String, uniqueName: String, mailbox: BusMailbox) {
        self.address = address
        self.uniqueName = uniqueName
        self.mailbox = mailbox
    }

    deinit { mailbox.requestStop() }

    /// The session bus's address: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` when that socket exists.
    package static func sessionAddress(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], FileManager.default.fileExists(atPath: runtime + "/bus") {
            return "unix:path=\(runtime)/bus"
        }
        return nil
    }

    /// Connects to the session bus (``sessionAddress(environment:)``).
    package static func session(environment: [String: String] = ProcessInfo.processInfo.environment) async throws(DBusError) -> DBusConnection {
        guard let address = sessionAddress(environment: environment) else { throw .noSessionBus }
        return try await connect(address: address)
    }

    /// Connects to the bus at `address` and says hello to it.
    /// - Throws: ``DBusError/unreachable(address:errno:)`` when nothing answers there,
    ///   ``DBusError/libraryMissing(library:reason:)`` when sd-bus cannot be loaded.
    package static func connect(address: String) async throws(DBusError) -> DBusConnection {
        try loadLibrary()
        let mailbox = try BusMailbox()
        let started = await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, DBusError>, Never>) in
            let thread = Thread {
                BusThread.run(address: address, mailbox: mailbox) { continuation.resume(returning: $0) }
            }
            thread.name = "herald-dbus"
            thread.start()
        }
        return DBusConnection(address: address, uniqueName: try started.get(), mailbox: mailbox)
    }

    /// The library sd-bus is loaded from: `HERALD_LIBSYSTEMD` (a path, for systems that keep it elsewhere), else
    /// `libsystemd.so.0` from the dynamic linker's search path.
    package static func libraryName(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let library = environment["HERALD_LIBSYSTEMD"], !library.isEmpty { return library }
        return "libsystemd.so.0"
    }

    /// Loads sd-bus (once per process: after a success, this returns at once).
    /// - Throws: ``DBusError/libraryMissing(library:reason:)`` with the dynamic linker's reason.
    package static func loadLibrary(_ library: String = libraryName()) throws(DBusError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard herald_systemd_load(library, &reason, reason.count) != 0 else { return }
        let text = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw .libraryMissing(library: library, reason: text)
    }

    /// Calls a method and waits for its reply.
    /// - Throws: ``DBusError/remote(name:message:)`` for an error reply (including a timeout, as
    ///   `org.freedesktop.DBus.Error.NoReply`), ``DBusError/closed`` when the bus is gone.
    package func call(
        destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        let microseconds = UInt64(max(1, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000))
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[DBusValue], DBusError>, Never>) in
            mailbox.post { thread in
                guard let thread else { return continuation.resume(returning: .failure(.closed)) }
                thread.startCall(
                    destination: destination, path: path, interface: interface, member: member, arguments: arguments,
                    timeout: microseconds
                ) { continuation.resume(returning: $0) }
            }
        }
        return try result.get()
    }

    /// Sends a signal.
    package func emit(path: String, interface: String, member: String, _ arguments: [DBusValue]) async throws(DBusError) {
        try await perform { thread throws(DBusError) in
            try thread.emit(path: path, interface: interface, member: member, arguments: arguments)
        }
    }

    /// The signals matching `match`, from now on, until the stream is dropped or the connection closes (the
    /// stream then ends: that is how a subscriber learns the bus went away).
    package func signals(_ match: DBusMatch) async throws(DBusError) -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusSignal.self)
        let subscription = try await perform { thread throws(DBusError) in try thread.subscribe(match, continuation) }
        continuation.onTermination = { [mailbox] _ in
            mailbox.post { $0?.unsubscribe(subscription) }
        }
        return stream
    }

    /// Answers method calls to `path` with `handler`, which runs on the bus thread and must not block.
    package func export(path: String, _ handler: @escaping @Sendable (DBusMethodCall) -> DBusReply) async throws(DBusError) {
        try await perform { thread throws(DBusError) in try thread.export(path: path, handler) }
    }

    /// Answers method calls to `path` with `handler`, which may take its time: each call waits for its answer (the
    /// bus thread goes on meanwhile). For a service whose answers need other work first (the network, another call).
    package func export(path: String, answering handler: @escaping @Sendable (DBusMethodCall) async -> DBusReply) async throws(DBusError) {
        try await perform { thread throws(DBusError) in try thread.export(path: path, answering: handler) }
    }

    /// Takes a well-known name (`org.freedesktop.Notifications`).
    package func requestName(_ name: String) async throws(DBusError) {
        try await perform { thread throws(DBusError) in
            _ = try DBusMessageCoding.check(name.withCString { sd_bus_request_name(thread.bus, $0, 0) }, "request name \(name)")
        }
    }

    /// Closes the connection: calls waiting for replies fail with ``DBusError/closed``, signal streams end.
    package func close() {
        mailbox.requestStop()
    }

    /// Returns once the connection is closed, by ``close()`` or because the bus went away.
    package func closed() async {
        await mailbox.untilClosed()
    }

    private func perform<T: Sendable>(_ body: @escaping @Sendable (BusThread) throws(DBusError) -> T) async throws(DBusError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, DBusError>, Never>) in
            mailbox.post { thread in
                guard let thread else { return continuation.resume(returning: .failure(.closed)) }
                continuation.resume(returning: Result { () throws(DBusError) in try body(thread) })
            }
        }
        return try result.get()
    }
}

/// Work for the bus thread, and how to wake it. A job gets the thread, or nil when the connection closed first.
final class BusMailbox: Sendable {
    typealias Job = @Sendable (BusThread?) -> Void

    private struct State {
        var jobs: [Job] = []
        var closed = false
        var stopRequested = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let wakeDescriptor: Int32
    private let state = Mutex(State())

    init() throws(DBusError) {
        let descriptor = herald_wake_descriptor()
        guard descriptor >= 0 else { throw .system("eventfd", errno: -descriptor) }
        wakeDescriptor = descriptor
    }

    /// Queues `job` for the bus thread; runs it at once with nil when the connection is closed.
    func post(_ job: @escaping Job) {
        let accepted = state.withLock { state in
            guard !state.closed else { return false }
            state.jobs.append(job)
            herald_wake(wakeDescriptor)
            return true
        }
        if !accepted { job(nil) }
    }

    func requestStop() {
        state.withLock { state in
            guard !state.closed else { return }
            state.stopRequested = true
            herald_wake(wakeDescriptor)
        }
    }

    /// The queued jobs, and whether the thread should stop.
    func take() -> (jobs: [Job], stop: Bool) {
        state.withLock { state in
            defer { state.jobs = [] }
            return (state.jobs, state.stopRequested)
        }
    }

    /// Marks the connection closed; the jobs still queued are returned, to be told so.
    func close() -> [Job] {
        let (jobs, waiters) = state.withLock { state in
            state.closed = true
            _ = Glibc.close(wakeDescriptor)
            defer {
                state.jobs = []
                state.closeWaiters = []
            }
            return (state.jobs, state.closeWaiters)
        }
        for waiter in waiters { waiter.resume() }
        return jobs
    }

    func untilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.closed { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
