import Foundation
import Synchronization

/// Runs one app's side of the engine: every call of the center in order, one at a time (Apple: "calls are
/// processed serially"), and a scheduler that sleeps until the next fire date and fires what is due.
package final class CenterRuntime: Sendable {
    package typealias Job = @Sendable () async -> Void

    package let bundleID: String
    /// Whose requests this runtime's scheduler fires: the app's own (nil: every app's, as the device daemon does).
    private let firesFor: String?
    private let engine: Result<any NotificationEngine, UNError>
    private let location: SimulatedLocation?
    /// Called once each new location has been fed to the engine and what it fired was delivered (tests wait on it).
    private let locationChecked: (@Sendable () -> Void)?
    /// How long the app's delegate may take to answer `willPresent` (as long as under the device daemon).
    package let willPresentTimeout: Duration
    private let jobs: AsyncStream<Job>.Continuation
    private let queue: AsyncStream<Job>
    private let state = Mutex(State())

    private struct State {
        var started = false
        var sleeper: Task<Void, Never>?
        var woken = false
    }

    /// - Parameters:
    ///   - engine: The engine, or why there is none (every call then fails with that error).
    ///   - location: Where location triggers learn the machine's location (checked every second).
    ///   - allApps: Fire every app's requests, not only this app's (the device daemon; benchmarks).
    ///   - willPresentTimeout: How long the app's delegate may take to answer `willPresent`.
    ///   - locationChecked: Called once each new location has been fed to the engine and what it fired was delivered.
    package init(
        bundleID: String, engine: Result<any NotificationEngine, UNError>, location: SimulatedLocation? = nil, allApps: Bool = false,
        willPresentTimeout: Duration = .seconds(10), locationChecked: (@Sendable () -> Void)? = nil
    ) {
        self.bundleID = bundleID
        firesFor = allApps ? nil : bundleID
        self.engine = engine
        self.location = location
        self.locationChecked = locationChecked
        self.willPresentTimeout = willPresentTimeout
        (queue, jobs) = AsyncStream.makeStream(of: Job.self)
    }

    /// Starts the serial queue and, for an in-process engine, the scheduler (once). `handlers` decide how a
    /// fired notification is shown and take responses and background pushes (from the device daemon).
    package func start(handlers: AppEventHandlers) {
        guard startQueue() else { return }
        if let daemon {
            daemon.setHandlers(handlers)
        } else {
            startScheduler { await handlers.willPresent($0.notification) }
        }
    }

    /// Starts the serial queue and the scheduler (once); `present` decides how a fired notification is shown.
    /// The device daemon's runtime, which fires every app's requests.
    package func start(present: @escaping @Sendable (LocalEngine.Fired) async -> UNNotificationPresentationOptions) {
        guard startQueue() else { return }
        startScheduler(present: present)
    }

    /// Starts the serial queue; false when it already runs.
    private func startQueue() -> Bool {
        guard
            state.withLock({ state in
                defer { state.started = true }
                return !state.started
            })
        else { return false }
        let queue = self.queue
        Task.detached {
            for await job in queue { await job() }
        }
        return true
    }

    private func startScheduler(present: @escaping @Sendable (LocalEngine.Fired) async -> UNNotificationPresentationOptions) {
        guard case .success(let engine) = engine, let scheduler = engine as? any NotificationScheduler else { return }
        Task.detached { [self] in
            await schedule(scheduler, present: present)
        }
        if let location {
            Task.detached { [self] in
                await follow(location, scheduler, present: present)
            }
        }
    }

    /// The device daemon this app talks to, if one ran when the app started.
    package var daemon: DaemonClient? {
        if case .success(let engine) = engine { engine as? DaemonClient } else { nil }
    }

    /// Tells the device daemon (if any) what the app handles now, in order with the app's other calls.
    package func attach(delegate: Bool, remoteNotifications: Bool) {
        guard let daemon else { return }
        jobs.yield { try? await daemon.attach(delegate: delegate, remoteNotifications: remoteNotifications) }
    }

    /// Runs `body` on the serial queue and returns its result.
    package func perform<Value: Sendable>(_ body: @escaping @Sendable (any NotificationEngine) async throws(UNError) -> Value) async throws(UNError)
        -> Value
    {
        let engine = try self.engine.get()
        let result: Result<Value, UNError> = await withCheckedContinuation { continuation in
            jobs.yield {
                do throws(UNError) {
                    continuation.resume(returning: .success(try await body(engine)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Queues `body` now (so it keeps its place among the app's calls) and hands its result to `completion`.
    package func submit<Value: Sendable>(
        _ body: @escaping @Sendable (any NotificationEngine) async throws(UNError) -> Value,
        completion: @escaping @Sendable (Result<Value, UNError>) -> Void
    ) {
        switch engine {
        case .failure(let error):
            jobs.yield { completion(.failure(error)) }
        case .success(let engine):
            jobs.yield {
                do throws(UNError) {
                    completion(.success(try await body(engine)))
                } catch {
                    completion(.failure(error))
                }
            }
        }
    }

    /// Runs `body` on the serial queue without waiting (calls that have no completion handler).
    package func enqueue(_ body: @escaping @Sendable (any NotificationEngine) async throws(UNError) -> Void) {
        guard case .success(let engine) = engine else { return }
        jobs.yield { try? await body(engine) }
    }

    /// Makes the scheduler look at the next fire date again (a request was added or removed).
    package func wake() {
        let sleeper = state.withLock { state in
            state.woken = true
            return state.sleeper
        }
        sleeper?.cancel()
    }

    /// Feeds each new location to the engine; location requests that were entered or left fire.
    private func follow(
        _ location: SimulatedLocation, _ engine: any NotificationScheduler,
        present: @escaping @Sendable (LocalEngine.Fired) async -> UNNotificationPresentationOptions
    ) async {
        var lastSet: Date?
        let app = firesFor
        while !Task.isCancelled {
            if let (coordinate, setAt) = location.current(), setAt != lastSet {
                lastSet = setAt
                let fired = (try? await perform { _ throws(UNError) in try await engine.updateLocation(coordinate, now: Date(), app: app) }) ?? []
                await deliver(fired, engine, present: present)
                locationChecked?()
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Asks how to present each fired notification, then completes them all in one job.
    private func deliver(
        _ fired: [LocalEngine.Fired], _ engine: any NotificationScheduler,
        present: @escaping @Sendable (LocalEngine.Fired) async -> UNNotificationPresentationOptions
    ) async {
        guard !fired.isEmpty else { return }
        var decided: [(LocalEngine.Fired, UNNotificationPresentationOptions)] = []
        for item in fired { decided.append((item, await present(item))) }
        let batch = decided
        try? await perform { _ throws(UNError) in
            try await engine.complete(batch)
        }
    }

    private func schedule(
        _ engine: any NotificationScheduler, present: @escaping @Sendable (LocalEngine.Fired) async -> UNNotificationPresentationOptions
    ) async {
        var timeZone = TimeZone.current.identifier
        let app = firesFor
        while !Task.isCancelled {
            // Floating calendar triggers follow the system time zone: when it changes, their dates move.
            NSTimeZone.resetSystemTimeZone()
            if TimeZone.current.identifier != timeZone {
                timeZone = TimeZone.current.identifier
                try? await perform { _ throws(UNError) in try await engine.reschedule(now: Date(), calendar: .current, app: app) }
            }
            let fired = (try? await perform { _ throws(UNError) in try await engine.tick(now: Date(), app: app) }) ?? []
            await deliver(fired, engine, present: present)
            // Between batches: what the last ones wrote goes into the file now, not inside the next batch's commit.
            try? await perform { _ throws(UNError) in try await engine.checkpoint() }
            let upcoming = (try? await perform { _ throws(UNError) in try await engine.nextFireDate(app: app) }) ?? nil
            guard let next = upcoming, next.timeIntervalSinceNow <= Self.readAhead else {
                // Wake shortly before the next fire date, and at least every minute in case the wall clock changed.
                await sleep(min(max((upcoming?.timeIntervalSinceNow ?? 60) - Self.readAhead, 0.001), 60))
                continue
            }
            // Read (and decode) what falls due ahead of time, so a thousand requests due at one second fire on it.
            let prepared = (try? await perform { _ throws(UNError) in try await engine.prepare(dueBy: next, app: app) }) ?? []
            await sleep(max(next.timeIntervalSinceNow, 0))
            let settled = (try? await perform { _ throws(UNError) in try await engine.settle(prepared, now: Date()) }) ?? []
            await deliver(settled, engine, present: present)
        }
    }

    /// How long before a fire date the due requests are read.
    private static let readAhead: TimeInterval = 0.25

    /// Sleeps `seconds`, or less if ``wake()`` is called.
    private func sleep(_ seconds: TimeInterval) async {
        guard seconds > 0 else { return }
        // A tight tolerance: the default leeway of a long sleep can be tens of milliseconds.
        let sleeper = Task<Void, Never> {
            _ = try? await Task.sleep(until: .now + .seconds(seconds), tolerance: .milliseconds(1), clock: .continuous)
        }
        let woken = state.withLock { state in
            defer {
                state.woken = false
                state.sleeper = sleeper
            }
            return state.woken
        }
        if woken { sleeper.cancel() }
        await sleeper.value
        state.withLock { $0.sleeper = nil }
    }
}

extension Result {
    /// The failure, if any.
    var error: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
