package import Foundation
package import HeraldSpawn
package import UserNotifications
package import UserNotificationsUI

/// A content extension running while one notification is expanded: started with the notification, it has
/// `startBudget` to draw its first view; then the host sends it the person's actions, clicks and media taps and reads
/// each view it draws, until ``close()``. A process of its own (the service extension's machinery: its own process
/// group, a socket for input, its output and errors kept as a capped log), with a pipe as descriptor 3 for its
/// messages (docs/content-extensions.md).
package final class HostedContentExtension: Sendable {
    package typealias Failure = ExtensionFailure

    /// Everything the extension sent up to and including its first view.
    package let opening: [ContentExtensionWire.Output]
    private let piped: PipedExtensionProcess<ContentExtensionWire.Output>

    private init(opening: [ContentExtensionWire.Output], piped: PipedExtensionProcess<ContentExtensionWire.Output>) {
        self.opening = opening
        self.piped = piped
    }

    /// What it sends after its first view, until it ends.
    package var outputs: AsyncStream<ContentExtensionWire.Output> { piped.outputs }

    /// The view the extension drew first.
    package var firstView: ViewSnapshot? { opening.last?.view }

    /// What it printed so far.
    package var log: String { piped.process.log }

    /// The environment an app's content (or widget) extension runs with: its bundle id and the device's data dir.
    package static func environment(bundleID: String, dataDirectory: URL) -> [String: String] {
        ["HERALD_BUNDLE_ID": bundleID, "HERALD_DATA_DIR": dataDirectory.path, "PATH": "/usr/bin:/bin"]
    }

    /// Starts `executable` for `notification` and waits for its first view.
    ///
    /// - Parameters:
    ///   - environment: the extension's whole environment; `HERALD_CONTENT_EXTENSION_FD` is added.
    ///   - directory: its working directory.
    ///   - startBudget: how long it may take from start to its first view (process start included).
    /// - Throws: ``Failure`` when it cannot start, ends, or draws nothing within the budget; it is then killed.
    package static func start(
        executable: URL, notification: NotificationRecord, environment: [String: String], directory: URL,
        startBudget: Duration = .seconds(2), outputLimit: Int = 4 << 20
    ) async throws(Failure) -> HostedContentExtension {
        let piped = try PipedExtensionProcess<ContentExtensionWire.Output>.start(
            "the content extension", executable: executable, environment: environment,
            descriptorVariable: ContentExtensionWire.outputDescriptorVariable, directory: directory, outputLimit: outputLimit)
        // An extension that has already gone fails the send; what follows says why.
        piped.send(ContentExtensionWire.Input(notification: notification))

        // The first view, the end of its messages, or the budget: whichever comes first.
        enum Start: Sendable {
            case drew([ContentExtensionWire.Output])
            case closed
            case timedOut
        }
        let deadline = ContinuousClock.now + startBudget
        let outputs = piped.outputs
        let start = await withTaskGroup(of: Start.self) { group in
            group.addTask {
                var received: [ContentExtensionWire.Output] = []
                for await output in outputs {
                    received.append(output)
                    if output.view != nil { return .drew(received) }
                }
                return .closed
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
        guard case .drew(let opening) = start else {
            let timedOut = if case .timedOut = start { true } else { false }
            await piped.end(killingAtOnce: timedOut)
            let termination = piped.process.termination
            let reason =
                timedOut
                ? "the content extension drew no view within \(startBudget)"
                : "the content extension \(termination.map { "\($0)" } ?? "closed its messages") before it drew a view"
            throw Failure(reason: reason, log: piped.process.log)
        }
        return HostedContentExtension(opening: opening, piped: piped)
    }

    /// Sends one input; false when the extension has gone.
    @discardableResult
    package func send(_ input: ContentExtensionWire.Input) -> Bool {
        piped.send(input)
    }

    /// How the process ended; nil while it runs.
    package var termination: ChildProcess.Termination? { piped.process.termination }

    /// How the process ended, waiting up to `limit` for it (its output can close just before it is reaped).
    package func termination(within limit: Duration) async -> ChildProcess.Termination? {
        _ = await piped.process.ended.wait(until: .now + limit)
        return piped.process.termination
    }

    /// Closes its input (the interface closed), gives it `grace` to end, then kills its process group.
    package func close(grace: Duration = .seconds(1)) async {
        await piped.close(grace: grace)
    }
}
