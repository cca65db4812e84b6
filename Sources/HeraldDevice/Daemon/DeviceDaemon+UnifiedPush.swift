import Foundation
import HeraldDBus
import HeraldWire
import Synchronization
import UserNotifications

/// The daemon as a UnifiedPush distributor (docs/unifiedpush.md): apps' connectors register over D-Bus; each
/// registration is a web push subscription of this device at the gateway, whose messages come over the device link
/// and go to the app's connector.
extension DeviceDaemon {
    /// Serves the distributor on the session bus until cancelled or the bus goes; without a session bus (or with the
    /// name taken by another distributor), says so and leaves the rest of the daemon running.
    func runDistributor() async {
        guard let address = configuration.sessionBusAddress ?? DBusConnection.sessionAddress() else {
            unifiedPushTried.open()
            return report(.problem("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set): not serving UnifiedPush apps"))
        }
        let distributor: UnifiedPushDistributor
        do throws(DBusError) {
            distributor = try await UnifiedPushDistributor.start(address: address) { [self] request in
                await answer(request)
            }
        } catch {
            unifiedPushTried.open()
            return report(.problem("not serving UnifiedPush apps: cannot be \(UnifiedPushDistributor.busName) on the session bus: \(error)"))
        }
        self.distributor.withLock { $0 = distributor }
        unifiedPushTried.open()
        report(.unifiedPush(.distributing(busName: UnifiedPushDistributor.busName)))
        await withTaskCancellationHandler {
            await distributor.connection.closed()
        } onCancel: {
            distributor.close()
        }
        self.distributor.withLock { $0 = nil }
        if !Task.isCancelled { report(.problem("the D-Bus session bus went away: no longer serving UnifiedPush apps")) }
    }

    /// The answer to a connector's `Register` or `Unregister`.
    func answer(_ request: UnifiedPushRequest) async -> DBusReply {
        switch request {
        case .register(let registration):
            return UnifiedPushRequest.answer(await register(registration), version: registration.version)
        case .unregister(let token, let version):
            await unregister(token: token)
            return UnifiedPushRequest.unregisterAnswer(version: version)
        }
    }

    /// Registers at the gateway (again, for a known token: its endpoint may change with a new VAPID key), then gives the
    /// connector its endpoint. Without the gateway right now, a known registration keeps its endpoint; a new one fails
    /// with `NETWORK`.
    private func register(_ request: UnifiedPushRequest.Registration) async -> UnifiedPushRequest.Outcome {
        let known = unifiedPush.registration(token: request.token)
        if let known, known.service != request.service { return .failed(.unauthorized) }
        var registration = known ?? UnifiedPushRegistration(token: request.token, service: request.service, version: request.version, vapid: nil)
        registration.version = request.version
        guard let sender = link.withLock({ $0.sender }) else {
            guard let known, !known.removed, let endpoint = known.endpoint, known.vapid == request.vapid else { return .failed(.network) }
            registration.vapid = request.vapid
            try? unifiedPush.save(registration)
            newEndpoint(registration, endpoint)
            return .succeeded
        }
        registration.vapid = request.vapid
        registration.removed = false
        do {
            try unifiedPush.save(registration)
        } catch {
            report(.problem("cannot keep the UnifiedPush registration of \(request.service): \(error)"))
            return .failed(.internalError)
        }
        let sent = registration
        let key = Self.webPushKey(registration.service, registration.subscription)
        let result = await unifiedPushWaiters.wait(for: key, timeout: configuration.registrationTimeout) {
            try await sender.send(.register(topic: sent.service, kind: .webPush, activityID: sent.subscription, applicationServerKey: sent.vapid))
        }
        switch result {
        case .success(let endpoint):
            newEndpoint(registration, endpoint)
            return .succeeded
        case .failure(let error):
            report(.problem("cannot register \(request.service) for web push: \(error.message)"))
            if known == nil { try? unifiedPush.remove(token: request.token) } else if let known { try? unifiedPush.save(known) }
            if error.message.hasPrefix(Self.refusedPrefix + "TooManySubscriptions") { return .failed(.actionRequired) }
            return .failed(error.message.hasPrefix(Self.refusedPrefix) ? .internalError : .network)
        }
    }

    /// Forgets the registration, asks the gateway to retire its subscription (now, or on the next link), and confirms
    /// to the connector (unless it is gone). An unknown token changes nothing.
    func unregister(token: String, tellingConnector: Bool = true) async {
        guard var registration = unifiedPush.registration(token: token) else { return }
        defer {
            if tellingConnector {
                confirmUnregistered(registration)
            } else {
                report(.unifiedPush(.unregistered(app: registration.service, subscription: registration.subscription)))
            }
        }
        do {
            if registration.deviceToken == nil {
                try unifiedPush.remove(token: token)
            } else {
                registration.removed = true
                try unifiedPush.save(registration)
            }
        } catch {
            report(.problem("cannot forget the UnifiedPush registration of \(registration.service): \(error)"))
        }
        if registration.deviceToken != nil, let sender = link.withLock({ $0.sender }) {
            try? await sender.send(.unregister(topic: registration.service, kind: .webPush, activityID: registration.subscription))
        }
    }

    private func confirmUnregistered(_ registration: UnifiedPushRegistration) {
        report(.unifiedPush(.unregistered(app: registration.service, subscription: registration.subscription)))
        tellConnector(registration, "Unregistered") { try await $0.unregistered(registration, confirming: true) }
    }

    /// Gives the connector its endpoint, after the answer to its call (a connector may wait for that answer before it
    /// takes calls).
    func newEndpoint(_ registration: UnifiedPushRegistration, _ endpoint: String) {
        report(.unifiedPush(.registered(app: registration.service, subscription: registration.subscription, endpoint: endpoint)))
        tellConnector(registration, "NewEndpoint") { try await $0.newEndpoint(registration, endpoint: endpoint) }
    }

    /// Calls the app's connector off the caller's path; a failure is only reported (the app asks again when it starts).
    func tellConnector(
        _ registration: UnifiedPushRegistration, _ what: String, _ call: @escaping @Sendable (UnifiedPushDistributor) async throws -> Void
    ) {
        guard let distributor = distributor.withLock({ $0 }) else { return }
        Task {
            do {
                try await call(distributor)
            } catch {
                report(.problem("cannot call \(what) on the UnifiedPush connector of \(registration.service): \(error)"))
            }
        }
    }

    /// A refusal from the gateway, as a waiting `Register` gets it.
    static let refusedPrefix = "refused: "

    /// The key `Register` calls wait under: the app and its subscription.
    static func webPushKey(_ service: String, _ subscription: String) -> String {
        service + "\n" + subscription
    }
}
