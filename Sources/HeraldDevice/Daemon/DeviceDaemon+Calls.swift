import Foundation
import UserNotifications

extension DeviceDaemon {
    /// Answers one call of a session: as the app the session is, never as an app it names.
    func answer(_ call: DaemonCall, id: Int, from session: AppSession) async -> DaemonMessage {
        if call.isActivityCall { return await answerActivityCall(call, id: id, from: session) }
        do throws(UNError) {
            return .result(id: id, result: try await perform(call, from: session))
        } catch {
            return .failure(id: id, code: error.code.rawValue, message: error.message, store: error.storeFailure?.code.rawValue)
        }
    }

    private func perform(_ call: DaemonCall, from session: AppSession) async throws(UNError) -> DaemonResult {
        let app: String
        switch session.role {
        case .refused(let message):
            throw UNError(.notificationsNotAllowed, message)
        case .control:
            switch call {
            case .respond(let request): return try await respond(request)
            case .expand(let bundleID, let identifier): return try await expand(bundleID: bundleID, identifier: identifier)
            case .openAppSettings(let bundleID, let identifier): return try await openAppSettings(of: bundleID, from: identifier)
            default:
                throw UNError(.notificationsNotAllowed, "the herald command may only show and respond to notifications over the daemon socket")
            }
        case .app(let manifest):
            app = manifest.bundleIdentifier
        }
        switch call {
        case .settings:
            return .settings(try await engine.settings(of: app))
        case .requestAuthorization(let options):
            do {
                return .granted(try await engine.requestAuthorization(of: app, options: UNAuthorizationOptions(rawValue: options)))
            } catch {
                report(.problem(error.message))  // said where the question went: whoever runs the daemon can answer
                throw error
            }
        case .add(let request):
            if let fired = try await engine.add(request, of: app, now: Date()) {
                try await engine.complete(fired, options: await presentationOptions(for: fired))
            }
            wakeScheduler()
            return .done
        case .pending:
            return .requests(try await engine.pending(of: app))
        case .removePending(let identifiers):
            try await engine.removePending(of: app, identifiers: identifiers)
            wakeScheduler()
            return .done
        case .delivered:
            return .notifications(try await engine.delivered(of: app))
        case .removeDelivered(let identifiers):
            try await engine.removeDelivered(of: app, identifiers: identifiers)
            return .done
        case .categories:
            return .categories(try await engine.categories(of: app))
        case .setCategories(let categories):
            try await engine.setCategories(categories, of: app)
            return .done
        case .setBadge(let count):
            try await engine.setBadge(count, of: app)
            return .done
        case .registerForRemoteNotifications:
            return .deviceToken(try await registerForRemoteNotifications(app))
        case .attach(let delegate, let remoteNotifications):
            session.attach(delegate: delegate, remoteNotifications: remoteNotifications)
            Task { await deliverQueuedEvents(of: app) }
            return .done
        case .activities, .requestActivity, .changeActivity:
            preconditionFailure("answered by answerActivityCall")
        case .respond, .expand, .openAppSettings:
            throw UNError(
                .notificationsNotAllowed, "apps cannot respond to notifications or expand them; the person does (`herald device respond`, `show`)")
        }
    }
}
