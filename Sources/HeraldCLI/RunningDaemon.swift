import ArgumentParser
import Foundation
import UserNotifications

/// The device daemon of a data dir, as `herald device respond` and `show` reach it: over its socket, its refusals
/// said as messages a person can act on.
struct RunningDaemon {
    private let client: DaemonClient

    /// - Throws: `ValidationError` when no daemon serves `dataDirectory`.
    init(dataDirectory: String) throws {
        let socket = DaemonSocket.path(dataDirectory: URL(fileURLWithPath: dataDirectory))
        guard DaemonSocket.isListening(at: socket) else {
            throw ValidationError("no device daemon runs for \(dataDirectory): start `herald device` (it listens on \(socket))")
        }
        client = DaemonClient(path: socket)
    }

    /// A delivered notification with its actions and its app's content extension.
    func expand(bundleID: String?, identifier: String) async throws -> ExpandedNotification {
        guard case .expanded(let expanded) = try await call(.expand(bundleID: bundleID, identifier: identifier)) else {
            throw ValidationError("the device daemon answered with something unexpected")
        }
        return expanded
    }

    /// The person's answer to a delivered notification, handed to its app: which app, which action, what became of it.
    func respond(_ request: RespondRequest) async throws -> (bundleID: String, actionIdentifier: String, delivery: String) {
        guard case .responded(let bundleID, let actionIdentifier, let delivery) = try await call(.respond(request)) else {
            throw ValidationError("the device daemon answered with something unexpected")
        }
        return (bundleID, actionIdentifier, delivery)
    }

    /// Asks the app for its own notification settings screen (from one of its notifications when `identifier` is given).
    func openAppSettings(of bundleID: String, from identifier: String?) async throws -> String {
        guard case .responded(_, _, let delivery) = try await call(.openAppSettings(bundleID: bundleID, identifier: identifier)) else {
            throw ValidationError("the device daemon answered with something unexpected")
        }
        return delivery
    }

    private func call(_ call: DaemonCall) async throws -> DaemonResult {
        do {
            return try await client.call(call)
        } catch {
            throw ValidationError(error.localizedDescription)
        }
    }
}
