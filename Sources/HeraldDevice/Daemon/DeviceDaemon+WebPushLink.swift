import Foundation
import HeraldDBus
import HeraldWire
import Synchronization
import UserNotifications

/// The gateway link's side of the UnifiedPush distributor: web push subscriptions registered and retired, and their
/// messages handed to the apps' connectors.
extension DeviceDaemon {
    /// On each link: every live registration again (the gateway answers with the endpoint it has), and the retirement
    /// of those the apps removed while the link was down.
    func webPushLinkRequests() -> [DeviceLinkMessage] {
        guard configuration.distributesUnifiedPush else { return [] }
        return unifiedPush.all.compactMap { registration in
            if registration.removed {
                return registration.deviceToken == nil
                    ? nil : .unregister(topic: registration.service, kind: .webPush, activityID: registration.subscription)
            }
            return .register(
                topic: registration.service, kind: .webPush, activityID: registration.subscription, applicationServerKey: registration.vapid)
        }
    }

    /// The gateway's answer to a web push request, or its word that a subscription was retired.
    func webPushLinkAnswer(_ message: DeviceLinkMessage) async {
        switch message {
        case .registered(let service, let deviceToken, _, let subscription?, let endpoint):
            let key = Self.webPushKey(service, subscription)
            guard var registration = unifiedPush.registration(service: service, subscription: subscription), !registration.removed,
                let endpoint
            else {
                return unifiedPushWaiters.finish(key, with: .failure(UNError(.notificationsNotAllowed, "the registration went meanwhile")))
            }
            let changed = registration.endpoint != endpoint
            (registration.deviceToken, registration.endpoint) = (deviceToken, endpoint)
            do {
                try unifiedPush.save(registration)
            } catch {
                report(.problem("cannot keep the endpoint of \(service): \(error)"))
            }
            // A waiting Register gives the endpoint itself; otherwise (a new link) only a changed one is news to the app.
            if unifiedPushWaiters.isWaiting(for: key) {
                unifiedPushWaiters.finish(key, with: .success(endpoint))
            } else if changed {
                newEndpoint(registration, endpoint)
            }
        case .unregistered(let service, let deviceToken, _, let subscription?):
            guard let registration = unifiedPush.registration(service: service, subscription: subscription) else { return }
            if registration.removed {
                try? unifiedPush.remove(token: registration.token)
            } else if registration.deviceToken == deviceToken, !unifiedPushWaiters.isWaiting(for: Self.webPushKey(service, subscription)) {
                // Retired at the gateway (the console, or another key): the app hears, and registers again if it wants.
                try? unifiedPush.remove(token: registration.token)
                report(.unifiedPush(.unregistered(app: service, subscription: subscription)))
                tellConnector(registration, "Unregistered") { try await $0.unregistered(registration, confirming: false) }
            }
        case .error(let refusal):
            guard let service = refusal.topic, let subscription = refusal.activityID else {
                return report(.refused(reason: refusal.reason, message: refusal.message))
            }
            let key = Self.webPushKey(service, subscription)
            if unifiedPushWaiters.isWaiting(for: key) {
                return unifiedPushWaiters.finish(
                    key, with: .failure(UNError(.notificationsNotAllowed, Self.refusedPrefix + "\(refusal.reason): \(refusal.message)")))
            }
            report(.refused(reason: refusal.reason, message: refusal.message))
            guard let registration = unifiedPush.registration(service: service, subscription: subscription) else { return }
            // The unregistration of a removed one (NotRegistered: nothing to retire), or the registration of a live one
            // again, refused: either way it is gone.
            try? unifiedPush.remove(token: registration.token)
            if !registration.removed {
                report(.unifiedPush(.unregistered(app: service, subscription: subscription)))
                tellConnector(registration, "Unregistered") { try await $0.unregistered(registration, confirming: false) }
            }
        default:
            break
        }
    }

    /// Hands a web push message to its app's connector, its body as the sender encrypted it.
    ///
    /// - Throws: ``GatewayLinkUndelivered`` when the connector cannot be reached or does not answer (no session bus, the
    ///   app not installed or failing to start): the message stays pending at the gateway until the next link.
    func deliverWebPush(_ notification: LinkNotification) async throws {
        let apnsID = APNsID.format(notification.apnsID)
        guard let message = WebPushLinkPayload(payload: notification.payload) else {
            return report(.problem("dropped web push \(apnsID) for \(notification.bundleID): its payload is not a wrapped web push message"))
        }
        guard let registration = unifiedPush.registration(deviceToken: notification.deviceToken), !registration.removed else {
            return report(.problem("dropped web push \(apnsID) for \(notification.bundleID): no UnifiedPush app holds that subscription now"))
        }
        // At start, the link may come up before the distributor is on the bus.
        _ = await unifiedPushTried.wait(until: .now + .seconds(10))
        let event = { @Sendable (delivered: Bool) in
            UnifiedPushEvent.message(
                app: registration.service, subscription: registration.subscription, apnsID: apnsID, topic: message.topic,
                urgency: message.urgency.rawValue, size: message.body.count, delivered: delivered)
        }
        guard let distributor = distributor.withLock({ $0 }) else {
            report(.unifiedPush(event(false)))
            let reason = "no UnifiedPush distributor on a session bus"
            report(.problem("web push \(apnsID) for \(registration.service) stays pending at the gateway: \(reason)"))
            throw GatewayLinkUndelivered()
        }
        do {
            try await distributor.message(registration, body: message.body, id: apnsID)
        } catch {
            report(.unifiedPush(event(false)))
            if case .remote(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: _) = error {
                // No connector and nothing to start one: the app is not installed any more. Its subscription goes (the
                // sender gets 410 from now on) and the message is dropped, so a removed app cannot hold the link's window.
                report(.problem("web push \(apnsID) dropped: \(registration.service) is not installed any more; its subscription is removed"))
                return await unregister(token: registration.token, tellingConnector: false)
            }
            report(
                .problem(
                    "web push \(apnsID) for \(registration.service) stays pending at the gateway until the link reconnects: its UnifiedPush connector cannot be reached: \(error)"
                ))
            throw GatewayLinkUndelivered()
        }
        report(.unifiedPush(event(true)))
    }
}

extension DeviceLinkMessage {
    /// Whether this is an answer about a web push subscription (registered, retired, or a refusal of a request for one).
    var isAboutWebPush: Bool {
        switch self {
        case .registered(_, _, let kind, _, _), .unregistered(_, _, let kind, _): kind == .webPush
        case .error(let refusal): refusal.kind == .webPush
        default: false
        }
    }
}
