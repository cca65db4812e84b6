import Foundation
import Synchronization
import UserNotifications
import UserNotificationsUI

/// The views apps' widget extensions draw of their Live Activities: one process per extension, started at its first
/// drawing and closed when its app shows no more activities (or the daemon stops). An app without a widget extension,
/// or whose extensions fail, gets the default view; the failure is said once per drawing.
final class ActivityViews: Sendable {
    /// What a drawing gave: the view, and what went wrong on the way (each a sentence for the daemon's log).
    struct Drawing: Sendable {
        var view: ViewSnapshot?
        var problems: [String] = []
    }

    /// By app and extension: `BUNDLE_ID EXTENSION_ID`.
    private let running = Mutex<[String: HostedWidgetExtension]>([:])
    private let environment: @Sendable (String) -> [String: String]
    private let startBudget: Duration
    private let drawBudget: Duration

    /// - Parameters:
    ///   - environment: an extension's environment, by its app's bundle id.
    ///   - startBudget: how long an extension may take to start and draw its first view.
    ///   - drawBudget: how long it may take for each later one.
    init(environment: @escaping @Sendable (String) -> [String: String], startBudget: Duration, drawBudget: Duration) {
        self.environment = environment
        self.startBudget = startBudget
        self.drawBudget = drawBudget
    }

    /// `activity` drawn by the first of `extensions` (the app's widget extensions) that draws its type.
    func draw(_ activity: ActivityRecord, bundleID: String, extensions: [ExtensionManifest]) async -> Drawing {
        var drawing = Drawing()
        for manifest in extensions {
            do throws(ExtensionFailure) {
                let output = try await hosted(manifest, bundleID: bundleID).draw(activity, startBudget: startBudget, drawBudget: drawBudget)
                if let view = output.view {
                    drawing.view = view
                    return drawing
                }
                drawing.problems.append("\(manifest.bundleIdentifier) does not draw activity \(activity.id): \(output.declined ?? "it sent no view")")
            } catch {
                drawing.problems.append(
                    "the widget extension \(manifest.bundleIdentifier) could not draw activity \(activity.id): \(error.reason)"
                        + (error.log.isEmpty ? "" : "; it printed: \(error.log)"))
            }
        }
        return drawing
    }

    /// Closes the extensions of `bundleID` (its last activity is gone).
    func close(bundleID: String) async {
        let closing = running.withLock { running in
            let prefix = bundleID + " "
            let keys = running.keys.filter { $0.hasPrefix(prefix) }
            defer { keys.forEach { running[$0] = nil } }
            return keys.compactMap { running[$0] }
        }
        for hosted in closing { await hosted.close() }
    }

    /// Closes every extension (the daemon stops).
    func closeAll() async {
        let closing = running.withLock { running in
            defer { running = [:] }
            return Array(running.values)
        }
        for hosted in closing { await hosted.close() }
    }

    /// The extension's running process, started when there is none (or the last one finished).
    private func hosted(_ manifest: ExtensionManifest, bundleID: String) throws(ExtensionFailure) -> HostedWidgetExtension {
        let key = bundleID + " " + manifest.bundleIdentifier
        let (started, finished) = running.withLock { running -> (Result<HostedWidgetExtension, ExtensionFailure>, HostedWidgetExtension?) in
            let previous = running[key]
            if let previous, !previous.isFinished { return (.success(previous), nil) }
            running[key] = nil
            do throws(ExtensionFailure) {
                let hosted = try HostedWidgetExtension.start(
                    executable: manifest.executable, environment: environment(bundleID), directory: FileManager.default.temporaryDirectory)
                running[key] = hosted
                return (.success(hosted), previous)
            } catch {
                return (.failure(error), previous)
            }
        }
        if let finished { Task { await finished.close() } }
        return try started.get()
    }
}
