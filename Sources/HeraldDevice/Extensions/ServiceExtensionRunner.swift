package import Foundation
package import UserNotifications

/// Runs a notification service extension for one request, as iOS does for a remote notification with
/// `mutable-content: 1` and an alert, and says what to present.
///
/// The executable (a `UNNotificationServiceExtension` subclass marked `@main`) gets the request on its standard
/// input and has `budget` to call its content handler; then it is told `serviceExtensionTimeWillExpire()` and
/// has `grace` more; then its process group is killed. Whatever goes wrong — it cannot start, crashes, hangs,
/// prints more than `outputLimit`, returns garbage, or removes the alert text — the original content is
/// presented, with the reason. Attachments it returns are validated and moved into the app's attachment store
/// one by one; a bad one is dropped alone. Runs may happen concurrently; none blocks a thread.
///
/// ```swift
/// let runner = ServiceExtensionRunner(budget: .seconds(30))
/// let outcome = await runner.run(executable: extensionURL, request: record,
///                                environment: ["HERALD_DATA_DIR": dataDir, "HERALD_BUNDLE_ID": bundleID],
///                                attachments: store)
/// present(outcome.request)
/// ```
/// The wire protocol and the environment it sets are in docs/service-extensions.md.
package struct ServiceExtensionRunner: Sendable {
    /// How long the extension has to call its content handler before `serviceExtensionTimeWillExpire()`.
    package var budget: Duration
    /// How long it has after `serviceExtensionTimeWillExpire()` before it is killed.
    package var grace: Duration
    /// The most it may print and return together, in bytes.
    package var outputLimit: Int

    package init(budget: Duration = .seconds(30), grace: Duration = .seconds(5), outputLimit: Int = 4 << 20) {
        self.budget = budget
        self.grace = grace
        self.outputLimit = outputLimit
    }

    /// How a run of the process ended, as the runner saw it.
    struct Ending: Sendable {
        /// `serviceExtensionTimeWillExpire()` was sent before the process settled.
        var expired = false
        /// It was still running after budget and grace.
        var timedOut = false
    }

    /// Runs `executable` for `request` and returns what to present. Never throws: every failure yields the
    /// original content with the reason.
    /// - Parameters:
    ///   - environment: the extension's whole environment (the runner adds `HOME`, `XDG_CACHE_HOME`,
    ///     `XDG_DATA_HOME`, `XDG_CONFIG_HOME` and `TMPDIR` of its container, and `HERALD_SERVICE_EXTENSION_RESULT`).
    ///   - attachments: the app's attachment store, which the extension's attachments move into.
    package func run(executable: URL, request: RequestRecord, environment: [String: String], attachments: AttachmentStore) async
        -> ServiceExtensionOutcome
    {
        let name = executable.lastPathComponent
        let workspace: ServiceExtensionWorkspace
        do {
            workspace = try ServiceExtensionWorkspace.create(besideStore: attachments.directory)
        } catch {
            return Self.original(request, "cannot make a temporary directory for the service extension \(name): \(error.localizedDescription)")
        }
        defer { workspace.remove() }

        let groups = AppGroupContainer.root(environment: environment)
        var environment = environment.merging(workspace.environment) { $1 }
        environment[ServiceExtensionWire.resultPathVariable] = workspace.resultFile.path
        let process: ServiceExtensionProcess
        do {
            process = try ServiceExtensionProcess.start(
                executable: executable, environment: environment,
                directory: workspace.temporaryDirectory, outputLimit: outputLimit)
        } catch {
            return Self.original(request, "cannot start the service extension \(executable.path): \(error.localizedDescription)")
        }
        let ending = await drive(process, request: request)
        return conclude(process: process, ending: ending, request: request, workspace: workspace, appGroups: groups, attachments: attachments)
    }

    /// Gives the process the request, waits for it (telling it when time is nearly up), and leaves nothing of it
    /// running.
    private func drive(_ process: ServiceExtensionProcess, request: RequestRecord) async -> Ending {
        let start = ContinuousClock.now
        var ending = Ending()
        // A process that already went cannot take the request; how it ended says why.
        let sent = (try? ServiceExtensionWire.Input(request: request).line()).map(process.send) ?? false
        if await !process.settled.wait(until: start + budget), sent {
            ending.expired = true
            if let line = try? ServiceExtensionWire.Input(timeWillExpire: true).line() { _ = process.send(line) }
            ending.timedOut = await !process.settled.wait(until: start + budget + grace)
        } else if !process.settled.isOpen {
            ending.timedOut = true
        }
        process.killGroup()
        _ = await process.ended.wait(until: .now + .seconds(10))
        _ = await process.drained.wait(until: .now + .seconds(1))
        process.finish()
        return ending
    }

    static func original(_ request: RequestRecord, _ reason: String, log: String = "") -> ServiceExtensionOutcome {
        ServiceExtensionOutcome(request: request, source: .original(reason: reason), log: log)
    }
}
