import Foundation
import HeraldStore
import HeraldWire
import NIOCore

/// Broadcasts (iOS 18): `POST /4/broadcasts/apps/BUNDLE` on the provider port, to a channel made with the channel
/// management API. The rules run in ``BroadcastHead``'s order, then authentication as for notifications, the key's
/// reach, the payload, and the channel. A broadcast is committed as one row through the notification writer, whatever
/// the number of subscribers, and handed to every subscribed device online (on any node of a cluster); a channel created
/// with storage policy 1 keeps it as its latest, in the same commit, for devices that subscribe or come back within its
/// expiration (at most 8 hours).
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
            let receivedAt = clock.now()
            let eventLoop = connection.eventLoop
            eventLoop.makeFutureWithTask { () async throws(Rejection) -> StoredNotification in
                try await self.broadcast(head, payload: payload, requestID: requestID, receivedAt: receivedAt)
            }.assumeIsolated().whenComplete { result in
                switch result {
                case .success(let broadcast):
                    let uniqueID = self.configuration.environment == .development ? broadcast.uniqueID : nil
                    self.writer.submit(broadcast, on: eventLoop) { failure in
                        finish(
                            ProviderResponse(
                                apnsID: requestID, uniqueID: failure == nil ? uniqueID : nil, rejection: failure, answersBroadcast: true))
                    }
                case .failure(let error as Rejection): refuse(error)
                case .failure: refuse(Rejection(.internalServerError, "the broadcast could not be handled"))
                }
            }
        } catch {
            refuse(error)
        }
    }

    /// The channel's checks, then the broadcast as the one row every subscribed device is handed (``DeviceHub``), kept
    /// as the channel's latest under storage policy 1 with an expiration ahead.
    private func broadcast(_ head: BroadcastHead, payload: Data, requestID: UUID, receivedAt: Date) async throws(Rejection) -> StoredNotification {
        let channel: BroadcastChannel?
        do {
            channel = try await store.channel(id: head.channelID)
        } catch {
            throw .storeFailure(error)
        }
        // APNs has been seen to answer an id it never issued BadChannelId, and a deleted channel ChannelNotRegistered.
        guard let channel, let channelToken = BroadcastChannel.token(forChannel: channel.id) else {
            throw Rejection(.badChannelID, "no channel has this id")
        }
        guard channel.deletedAt == nil, channel.bundleID == head.bundleID, channel.environment == configuration.environment else {
            throw Rejection(.channelNotRegistered, "the channel was deleted, or is another app's or environment's")
        }
        if channel.storagePolicy == .noMessageStored, head.expiration != 0 {
            throw Rejection(.badExpirationDate, "a channel that stores no message takes apns-expiration 0 only")
        }
        let expiresAt = min(Date(timeIntervalSince1970: TimeInterval(head.expiration)), receivedAt.addingTimeInterval(Self.broadcastStorageLimit))
        let kept = channel.storagePolicy == .mostRecentMessageStored && expiresAt > receivedAt
        return StoredNotification(
            apnsID: requestID, uniqueID: APNsID.generate(), deviceToken: channelToken, bundleID: head.bundleID,
            topic: head.bundleID + PushType.liveActivity.topicSuffix, pushType: .liveActivity, priority: head.priority,
            expiration: head.expiration, collapseID: nil, payload: payload, receivedAt: receivedAt, channelID: channel.id,
            keptUntil: kept ? expiresAt : nil)
    }
}
