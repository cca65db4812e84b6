public import Foundation
public import HeraldWire

/// Typed builders, one per push type: each sets `apns-push-type`, the topic suffix APNs wants and the
/// payload shape and priority that type needs.
extension APNsNotification {
    /// An alert shown to the user.
    ///
    /// ```swift
    /// let notification = APNsNotification.alert(bundleID: "com.example.app", alert: .init(title: "Hi", body: "There"), badge: 1, sound: .default)
    /// ```
    public static func alert(
        bundleID: String,
        alert: APS.Alert,
        badge: Int? = nil,
        sound: APS.Sound? = nil,
        threadID: String? = nil,
        category: String? = nil,
        interruptionLevel: APS.InterruptionLevel? = nil,
        relevanceScore: Double? = nil,
        mutableContent: Bool = false,
        targetContentID: String? = nil,
        filterCriteria: String? = nil,
        custom: [String: JSONValue] = [:]
    ) -> APNsNotification {
        var payload = APNsPayload(custom: custom)
        payload.aps.alert = alert
        payload.aps.badge = badge
        payload.aps.sound = sound
        payload.aps.threadID = threadID
        payload.aps.category = category
        payload.aps.interruptionLevel = interruptionLevel
        payload.aps.relevanceScore = relevanceScore
        payload.aps.mutableContent = mutableContent
        payload.aps.targetContentID = targetContentID
        payload.aps.filterCriteria = filterCriteria
        return APNsNotification(topic: bundleID, pushType: .alert, payload: payload)
    }

    /// A silent push that wakes the app in the background (`content-available: 1`, priority 5 as APNs requires).
    public static func background(bundleID: String, custom: [String: JSONValue] = [:]) -> APNsNotification {
        var payload = APNsPayload(custom: custom)
        payload.aps.contentAvailable = true
        return APNsNotification(topic: bundleID, pushType: .background, payload: payload, priority: .powerConsiderate)
    }

    /// A PushKit VoIP push (topic `<bundle>.voip`; payload up to 5 KB).
    public static func voip(bundleID: String, custom: [String: JSONValue] = [:]) -> APNsNotification {
        APNsNotification(
            topic: bundleID + PushType.voip.topicSuffix, pushType: .voip, payload: APNsPayload(custom: custom),
            priority: .immediate
        )
    }

    /// A location query for a Location Push Service Extension (topic `<bundle>.location-query`).
    public static func location(bundleID: String) -> APNsNotification {
        APNsNotification(topic: bundleID + PushType.location.topicSuffix, pushType: .location, payload: APNsPayload(), priority: .immediate)
    }

    /// A watchOS complication update (topic `<bundle>.complication`).
    public static func complication(bundleID: String, custom: [String: JSONValue] = [:]) -> APNsNotification {
        APNsNotification(topic: bundleID + PushType.complication.topicSuffix, pushType: .complication, payload: APNsPayload(custom: custom))
    }

    /// A File Provider change signal (topic `<bundle>.pushkit.fileprovider`).
    ///
    /// - Parameters:
    ///   - containerIdentifier: The changed container; the working set when nil.
    ///   - domain: The File Provider domain, if the extension has several.
    public static func fileProvider(bundleID: String, containerIdentifier: String? = nil, domain: String? = nil) -> APNsNotification {
        var payload = APNsPayload()
        payload.includesEmptyAPS = false
        payload["container-identifier"] = .string(containerIdentifier ?? "NSFileProviderWorkingSetContainerItemIdentifier")
        payload["domain"] = domain.map(JSONValue.string)
        return APNsNotification(topic: bundleID + PushType.fileProvider.topicSuffix, pushType: .fileProvider, payload: payload)
    }

    /// An MDM wake-up: `{"mdm": PushMagic}` to the MDM certificate's topic.
    public static func mdm(topic: String, pushMagic: String) -> APNsNotification {
        var payload = APNsPayload()
        payload.includesEmptyAPS = false
        payload["mdm"] = .string(pushMagic)
        return APNsNotification(topic: topic, pushType: .mdm, payload: payload)
    }

    /// A Live Activity start, update or end (topic `<bundle>.push-type.liveactivity`, priority 10).
    ///
    /// ```swift
    /// let update = APNsNotification.liveActivity(bundleID: "com.example.app", event: .update,
    ///                                            contentState: .object(["score": .integer(3)]), timestamp: .now)
    /// ```
    public static func liveActivity(
        bundleID: String,
        event: APS.LiveActivityEvent,
        contentState: JSONValue,
        timestamp: Date,
        staleDate: Date? = nil,
        dismissalDate: Date? = nil,
        alert: APS.Alert? = nil,
        relevanceScore: Double? = nil,
        attributesType: String? = nil,
        attributes: JSONValue? = nil
    ) -> APNsNotification {
        var payload = APNsPayload()
        payload.aps.event = event
        payload.aps.contentState = contentState
        payload.aps.timestamp = timestamp
        payload.aps.staleDate = staleDate
        payload.aps.dismissalDate = dismissalDate
        payload.aps.alert = alert
        payload.aps.relevanceScore = relevanceScore
        payload.aps.attributesType = attributesType
        payload.aps.attributes = attributes
        return APNsNotification(
            topic: bundleID + PushType.liveActivity.topicSuffix, pushType: .liveActivity, payload: payload, priority: .immediate
        )
    }

    /// A Push to Talk push (topic `<bundle>.voip-ptt`, priority 10, not stored: it is stale at once).
    public static func pushToTalk(bundleID: String, custom: [String: JSONValue] = [:]) -> APNsNotification {
        APNsNotification(
            topic: bundleID + PushType.pushToTalk.topicSuffix, pushType: .pushToTalk, payload: APNsPayload(custom: custom),
            priority: .immediate, expiration: .immediately
        )
    }

    /// Asks the system to reload the app's widgets (topic `<bundle>.push-type.widgets`).
    public static func widgets(bundleID: String) -> APNsNotification {
        var payload = APNsPayload()
        payload.aps.contentChanged = true
        return APNsNotification(topic: bundleID + PushType.widgets.topicSuffix, pushType: .widgets, payload: payload)
    }

    /// Asks the system to reload the app's controls (topic `<bundle>.push-type.controls`).
    public static func controls(bundleID: String) -> APNsNotification {
        var payload = APNsPayload()
        payload.aps.contentChanged = true
        return APNsNotification(topic: bundleID + PushType.controls.topicSuffix, pushType: .controls, payload: payload)
    }
}
