import Foundation
import HeraldStore
import HeraldWire
import NIOCore

/// Broadcasts (iOS 18): `POST /4/broadcasts/apps/BUNDLE` on the provider port, to a channel made with the channel
/// management API. The rules run in ``BroadcastHead``'s order, then authentication as for notifications, the key's
/// reach, the payload, and the channel. A channel created with storage policy 1 keeps the broadcast as its latest,
/// durably before the 200, for devices that subscribe or come back within its expiration (at most 8 hours).
extension ProviderRequestProcessor {
    /// How long a channel keeps its latest broadcast at most (Apple: 8 hours, shortened by `apns-expiration`).
    static let broadcastStorageLimit: TimeInterval = 8 * 3600

    /// Answers a broadcast; on `connection`'s event loop, as ``process(_:on:answer:)``.
    func processBroadcast(_ request: ProviderRequest, on connection: ProviderConnection, finish: @escaping Answer) {
        // The provider's apns-request-id, when well formed, is on every answer, even one refused for another rule.
        let requestID = BroadcastHead.requestedRequestID(in: request.headers) ?? APNsID.generate()
        runBroadcast(request, connection: connection, requestID: requestID, key: nil, finish: finish)
    }

    private func runBroadcast(
        _ request: ProviderRequest, connection: ProviderConnection, requestID: UUID, key: ResolvedKey??, finish: @escaping Answer
    ) {
        let refuse = { (rejection: Rejection) in finish(ProviderResponse(apnsID: requestID, rejection: rejection, answersBroadcast: true)) }
        do throws(Rejection) {
            if let reason = connection.drainReason { throw Rejection(reason, "the connection is closing") }
            let head = try BroadcastHead.parse(request.headers)
            let grant: Grant
            switch try authenticate(bearer: head.bearerToken, connection: connection, loaded: Loaded(key: key)) {
            case .granted(let granted): grant = granted
            case .needsKey(let teamID, let keyID):
                directory.loadKey(teamID: teamID, keyID: keyID, on: connection.eventLoop).assumeIsolated().whenComplete { result in
                    guard case .success(let loaded) = result else { return finish(self.storeFailure(requestID, result)) }
                    self.runBroadcast(request, connection: connection, requestID: requestID, key: .some(loaded), finish: finish)
                }
                return
            }
            let covered =
                switch grant {
                case .key(let key): key.covers(bundleID: head.bundleID)
                case .certificate(let identity): identity.topics.contains(head.bundleID)
                }
            guard covered else { throw Rejection(.topicMismatch, "the key or certificate does not cover \(head.bundleID)") }
            if request.bodyLength > BroadcastHead.maximumPayloadSize {
                throw Rejection(.payloadTooLarge, "a broadcast is \(request.bodyLength) bytes; the limit is \(BroadcastHead.maximumPayloadSize)")
            }
            let payload = Data(request.body.readableBytesView)
            try PayloadCheck.checkBroadcast(payload)
            let uniqueID = APNsID.generate()
            let receivedAt = clock.now()
            connection.eventLoop.makeFutureWithTask { () async throws(Rejection) -> UUID in
                try await self.deliver(head, payload: payload, uniqueID: uniqueID, receivedAt: receivedAt)
                return uniqueID
            }.assumeIsolated().whenComplete { result in
                switch result {
                case .success(let uniqueID):
                    let development = self.configuration.environment == .development
                    finish(ProviderResponse(apnsID: requestID, uniqueID: development ? uniqueID : nil, answersBroadcast: true))
                case .failure(let error as Rejection): refuse(error)
                case .failure: refuse(Rejection(.internalServerError, "the broadcast could not be handled"))
                }
            }
        } catch {
            refuse(error)
        }
    }

    /// The channel's checks and, under storage policy 1 with an expiration ahead, the broadcast kept as its latest.
    private func deliver(_ head: BroadcastHead, payload: Data, uniqueID: UUID, receivedAt: Date) async throws(Rejection) {
        let channel: BroadcastChannel?
        do {
            channel = try await store.channel(id: head.channelID)
        } catch {
            throw .storeFailure(error)
        }
        // APNs has been seen to answer an id it never issued BadChannelId, and a deleted channel ChannelNotRegistered.
        guard let channel else { throw Rejection(.badChannelID, "no channel has this id") }
        guard channel.deletedAt == nil, channel.bundleID == head.bundleID, channel.environment == configuration.environment else {
            throw Rejection(.channelNotRegistered, "the channel was deleted, or is another app's or environment's")
        }
        if channel.storagePolicy == .noMessageStored, head.expiration != 0 {
            throw Rejection(.badExpirationDate, "a channel that stores no message takes apns-expiration 0 only")
        }
        let expiresAt = min(Date(timeIntervalSince1970: TimeInterval(head.expiration)), receivedAt.addingTimeInterval(Self.broadcastStorageLimit))
        guard channel.storagePolicy == .mostRecentMessageStored, expiresAt > receivedAt else { return }
        let broadcast = ChannelBroadcast(
            channelID: channel.id, uniqueID: uniqueID, payload: payload, priority: head.priority.rawValue, expiresAt: expiresAt,
            receivedAt: receivedAt)
        let kept: Bool
        do {
            kept = try await store.keepBroadcast(broadcast)
        } catch {
            throw .storeFailure(error)
        }
        guard kept else { throw Rejection(.channelNotRegistered, "the channel was deleted meanwhile") }
    }
}
