import Foundation
import HeraldStore
public import HeraldWire
import Synchronization

/// Delivery state changes as they happen — accepted, stored, delivered (acknowledged by the device), discarded, an
/// app unregistered — for whoever follows `GET /v1/events`. Publishing costs one atomic load while nobody follows.
public final class DeliveryEvents: Sendable {
    /// Events a slow follower may fall behind by before older ones are dropped for it.
    static let backlog = 10_000

    /// What a follower reads: an event, or a beat that only keeps the connection alive.
    public enum Item: Sendable {
        case event(JSONValue)
        case keepAlive
    }

    private let followers = Mutex<(next: Int, continuations: [Int: AsyncStream<Item>.Continuation])>((0, [:]))
    private let followerCount = Atomic<Int>(0)

    var isFollowed: Bool { followerCount.load(ordering: .relaxed) > 0 }

    /// The events from now on, with a beat every `keepAlive`, until the stream is dropped.
    public func follow(keepAlive: Duration = .seconds(15)) -> AsyncStream<Item> {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(Self.backlog))
        let id = followers.withLock { followers in
            followers.next += 1
            followers.continuations[followers.next] = continuation
            return followers.next
        }
        followerCount.add(1, ordering: .relaxed)
        let beats = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: keepAlive)
                continuation.yield(.keepAlive)
            }
        }
        continuation.onTermination = { [self] _ in
            beats.cancel()
            followers.withLock { _ = $0.continuations.removeValue(forKey: id) }
            followerCount.subtract(1, ordering: .relaxed)
        }
        return stream
    }

    /// Publishes what `make` builds, building it only when someone follows.
    func publish(_ make: () -> [JSONValue]) {
        guard isFollowed else { return }
        let events = make()
        let continuations = followers.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            for event in events { continuation.yield(.event(event)) }
        }
    }

    // MARK: The events
    //
    // Every event about one notification carries the same fields (`about`), so a page can show a notification it
    // has not seen without asking for it; its steps (`stored`, `discarded`) are the timeline's own (``DeliveryTimeline``).

    /// What a committed batch means to followers: each notification accepted, then stored (for an offline or virtual
    /// device) or discarded (apns-expiration 0 for an offline device) when it was.
    static func committed(_ batch: [StoredNotification]) -> [JSONValue] {
        var events: [JSONValue] = []
        // A request a fault rule took has its own event (``faulted(_:rule:)``), sent when the rule took it.
        for notification in batch where notification.delivery.discardReason != .faulted {
            events.append(accepted(notification))
            if notification.delivery.storedAt != nil, let stored = step("stored", of: notification) { events.append(stored) }
            if notification.delivery.state == .discarded, let discarded = step("discarded", of: notification) { events.append(discarded) }
        }
        return events
    }

    /// A request a fault rule took: `{"event":"faulted","rule":…,"action":…,"detail":…}` with the notification's
    /// fields; `state` says whether it will still be delivered (`pending`) or never (`discarded`).
    static func faulted(_ notification: StoredNotification, rule: FaultRule) -> JSONValue {
        var fields = about(notification)
        fields["event"] = .string("faulted")
        fields["at"] = .string(DeliveryTimeline.timestamp(notification.receivedAt))
        fields["rule"] = .string(rule.id)
        fields["action"] = .string(rule.actionKind)
        fields["detail"] = .string(rule.summary)
        return .object(fields)
    }

    static func accepted(_ notification: StoredNotification) -> JSONValue {
        var fields = about(notification)
        fields["event"] = .string("accepted")
        fields["at"] = .string(DeliveryTimeline.timestamp(notification.receivedAt))
        return .object(fields)
    }

    static func delivered(uniqueID: UUID, deviceID: String, at date: Date) -> JSONValue {
        .object([
            "event": .string("delivered"), "uniqueID": .string(APNsID.format(uniqueID)), "deviceID": .string(deviceID),
            "at": .string(DeliveryTimeline.timestamp(date)),
        ])
    }

    static func responded(uniqueID: UUID, deviceID: String, response: NotificationResponse) -> JSONValue {
        var fields: [String: JSONValue] = [
            "event": .string("responded"), "uniqueID": .string(APNsID.format(uniqueID)), "deviceID": .string(deviceID),
            "action": .string(response.action), "at": .string(DeliveryTimeline.timestamp(response.at)),
        ]
        if let text = response.text { fields["text"] = .string(text) }
        return .object(fields)
    }

    static func discarded(_ notification: StoredNotification, reason: DiscardReason, at date: Date) -> JSONValue {
        var discarded = notification
        discarded.delivery.state = .discarded
        discarded.delivery.discardedAt = date
        discarded.delivery.discardReason = reason
        return step("discarded", of: discarded) ?? accepted(notification)  // the timeline always has the step
    }

    /// A token retired: its app removed from the device (`reason` `unregistered`: later pushes get 410 Unregistered) or
    /// the token replaced (`expired`: 410 ExpiredToken); what was pending for it was discarded.
    static func unregistered(_ device: DeviceRecord) -> JSONValue {
        var fields: [String: JSONValue] = [
            "event": .string("unregistered"), "deviceToken": .string(device.token.hex), "topic": .string(device.topic),
            "reason": .string((device.retirement ?? .unregistered).rawValue),
        ]
        if let retiredAt = device.retiredAt { fields["at"] = .string(DeliveryTimeline.timestamp(retiredAt)) }
        if let owner = device.owner { fields["deviceID"] = .string(owner) }
        return .object(fields)
    }

    /// Which notification, to whom, and its delivery state.
    private static func about(_ notification: StoredNotification) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "apnsID": .string(APNsID.format(notification.apnsID)),
            "uniqueID": .string(APNsID.format(notification.uniqueID)),
            "deviceToken": .string(notification.deviceToken.hex),
            "topic": .string(notification.topic),
            "pushType": .string(notification.pushType.rawValue),
            "state": .string(notification.delivery.state.rawValue),
        ]
        if let id = notification.id { fields["logID"] = .integer(id) }
        if let collapseID = notification.collapseID { fields["collapseID"] = .string(collapseID) }
        return fields
    }

    /// The timeline's latest step named `name` (`at`, `reason`, `detail`), with the fields of `about`.
    private static func step(_ name: String, of notification: StoredNotification) -> JSONValue? {
        guard case .object(let step)? = DeliveryTimeline.events(of: notification).last(where: { $0["event"]?.stringValue == name }) else {
            return nil
        }
        return .object(about(notification).merging(step) { _, step in step })
    }
}
