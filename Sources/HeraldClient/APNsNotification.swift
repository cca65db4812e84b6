public import Foundation
public import HeraldWire

/// One notification: its headers and payload, ready to send to any number of device tokens.
///
/// Build one with the typed builders (``alert(bundleID:alert:badge:sound:threadID:category:interruptionLevel:relevanceScore:mutableContent:targetContentID:filterCriteria:custom:)``,
/// ``background(bundleID:custom:)``, ``liveActivity(bundleID:event:contentState:timestamp:staleDate:dismissalDate:alert:relevanceScore:attributesType:attributes:)`` …)
/// or from raw JSON:
///
/// ```swift
/// let notification = APNsNotification(topic: "com.example.app", payload: Data(#"{"aps":{"alert":"Hi"}}"#.utf8))
/// ```
public struct APNsNotification: Sendable, Hashable {
    /// `apns-topic`: the bundle id, with the push type's suffix where APNs wants one.
    public var topic: String
    public var pushType: PushType
    /// `apns-priority`; nil lets APNs use 10.
    public var priority: Priority?
    /// `apns-expiration`; nil lets APNs store the notification by its default policy.
    public var expiration: APNsExpiration?
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// `apns-id`; one is made (a time-ordered UUID) when nil, so every result and error names its notification.
    public var apnsID: UUID?
    /// The JSON body.
    public var payload: Data

    public init(
        topic: String,
        pushType: PushType = .alert,
        payload: Data,
        priority: Priority? = nil,
        expiration: APNsExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID? = nil
    ) {
        self.topic = topic
        self.pushType = pushType
        self.payload = payload
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// A notification whose body is `payload` encoded.
    public init(
        topic: String,
        pushType: PushType = .alert,
        payload: APNsPayload,
        priority: Priority? = nil,
        expiration: APNsExpiration? = nil,
        collapseID: String? = nil,
        apnsID: UUID? = nil
    ) {
        self.init(
            topic: topic, pushType: pushType, payload: payload.encoded(), priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID
        )
    }

    /// Refuses what APNs would refuse for the headers and size, before anything is sent.
    ///
    /// - Throws: ``APNsClientError`` `invalidRequest` with the APNs reason it would get.
    /// - Parameter payloadLimit: The size limit when it is not the push type's own (a broadcast's is 5,120 bytes).
    public func validate(payloadLimit: Int? = nil) throws(APNsClientError) {
        func hasControlCharacters(_ value: String) -> Bool { value.utf8.contains { $0 < 0x20 || $0 == 0x7F } }
        if hasControlCharacters(topic) {
            throw APNsClientError(.invalidRequest, "the topic contains control characters, which no HTTP header may carry", reason: .badTopic)
        }
        if let collapseID, hasControlCharacters(collapseID) {
            throw APNsClientError(
                .invalidRequest, "the collapse id contains control characters, which no HTTP header may carry", reason: .badCollapseID)
        }
        if topic.isEmpty {
            throw APNsClientError(.invalidRequest, "the notification has no topic (the app's bundle id)", reason: .missingTopic)
        }
        if payload.isEmpty {
            throw APNsClientError(.invalidRequest, "the payload is empty; send at least {\"aps\":{}}", reason: .payloadEmpty)
        }
        let limit = payloadLimit ?? pushType.maximumPayloadSize
        if payload.count > limit {
            throw APNsClientError(
                .invalidRequest, "the payload is \(payload.count) bytes; APNs takes at most \(limit) for \(pushType)",
                reason: .payloadTooLarge
            )
        }
        if let collapseID, collapseID.utf8.count > 64 {
            throw APNsClientError(.invalidRequest, "the collapse id is \(collapseID.utf8.count) bytes; APNs takes at most 64", reason: .badCollapseID)
        }
        if let priority, !priority.isKnown {
            throw APNsClientError(.invalidRequest, "priority \(priority) is not one of 10, 5 or 1", reason: .badPriority)
        }
        if !pushType.topicSuffix.isEmpty, pushType.bundleID(fromTopic: topic) == nil {
            throw APNsClientError(
                .invalidRequest, "a \(pushType) push needs a topic ending in \(pushType.topicSuffix), not \(topic)", reason: .badTopic
            )
        }
    }
}

/// `apns-expiration`: when APNs stops trying to deliver.
public struct APNsExpiration: Sendable, Hashable {
    /// UNIX seconds; 0 means deliver at once or never.
    public var epochSeconds: Int64

    public init(epochSeconds: Int64) {
        self.epochSeconds = epochSeconds
    }

    /// Try once; do not store for an offline device.
    public static let immediately = APNsExpiration(epochSeconds: 0)

    /// Keep trying until `date`.
    public static func at(_ date: Date) -> APNsExpiration {
        APNsExpiration(epochSeconds: Int64(date.timeIntervalSince1970.rounded(.up)))
    }
}
