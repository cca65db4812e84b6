import Foundation
import UserNotifications

extension DeviceDaemon {
    /// The notification center page's server: its list is `center`; expanding a notification asks ``expand``; the
    /// content extensions it hosts run as `herald device show`'s do.
    func notificationCenterServer(_ center: NotificationCenterPresenter) throws -> NotificationCenterServer {
        let dataDirectory = configuration.dataDirectory
        var services = NotificationCenterServices(
            presenter: center, files: ServedFiles(),
            expand: { [self] id throws(UNError) in
                guard case .expanded(let expanded) = try await expand(bundleID: id.bundleID, identifier: id.identifier) else {
                    throw UNError(.notificationsNotAllowed, "\(id) cannot be expanded")
                }
                return expanded
            },
            environment: { HostedContentExtension.environment(bundleID: $0, dataDirectory: dataDirectory) })
        services.log = { [report] in report(.problem($0)) }
        do {
            return NotificationCenterServer(services: services, secret: try NotificationCenterServer.secret(dataDirectory: dataDirectory))
        } catch {
            throw UNError(.notificationsNotAllowed, "cannot keep the notification center's secret in \(dataDirectory.path)/device: \(error)")
        }
    }

    /// Every app's delivered notifications as presentations, oldest first: what the page lists when the daemon starts.
    /// Each reads as the app's settings have it now (previews hidden when they are off), without a banner or a sound.
    func deliveredPresentations() async -> [Presentation] {
        let apps = (try? await store.perform { try $0.apps() }) ?? []
        var presentations: [Presentation] = []
        for (bundleID, settings) in apps {
            for notification in (try? await engine.delivered(of: bundleID)) ?? [] {
                var card = NotificationCard(notification, bundleID: bundleID)
                card.style = NotificationCard.Style(
                    content: notification.request.content, bundleID: bundleID, settings: settings ?? SettingsRecord(), options: [.list])
                presentations.append(await presentation.presentation(of: card))
            }
        }
        return presentations.sorted { $0.card.date < $1.card.date }
    }
}
