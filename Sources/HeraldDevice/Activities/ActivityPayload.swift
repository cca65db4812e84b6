package import Foundation
package import HeraldWire

/// The `aps` of a `liveactivity` push, as ActivityKit reads it.
package struct ActivityPayload: Sendable, Hashable {
    package enum Event: String, Sendable {
        case start, update, end
    }

    package var event: Event
    /// Seconds since 1970.
    package var timestamp: Double
    /// `content-state`, a JSON object; nil when absent (an end may carry none).
    package var contentState: Data?
    package var staleDate: Date?
    package var dismissalDate: Date?
    package var relevanceScore: Double?
    /// `alert`: a string or a dictionary, as sent.
    package var alert: JSONValue?
    package var attributesType: String?
    package var attributes: Data?
    /// `input-push-token: 1` in a start: the new activity asks for a token of its own.
    package var wantsToken: Bool
    /// `input-push-channel` in a start: the new activity takes this channel's broadcasts.
    package var channelID: String?

    /// Reads the payload; why it is not a Live Activity push otherwise (the gateway checked the rules already, so this
    /// only meets what an older gateway let through).
    package init(json: Data) throws(ActivityPayloadError) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(json)
        } catch {
            throw ActivityPayloadError("the payload is not JSON")
        }
        guard case .object(let aps)? = root["aps"] else { throw ActivityPayloadError("the payload has no aps dictionary") }
        guard let event = aps["event"]?.stringValue.flatMap(Event.init(rawValue:)) else {
            throw ActivityPayloadError("aps.event must be start, update or end")
        }
        guard let timestamp = aps["timestamp"]?.doubleValue else { throw ActivityPayloadError("aps.timestamp must be a number") }
        self.event = event
        self.timestamp = timestamp
        contentState = aps["content-state"].flatMap { $0.objectValue == nil ? nil : $0.encoded() }
        staleDate = aps["stale-date"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
        dismissalDate = aps["dismissal-date"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
        relevanceScore = aps["relevance-score"]?.doubleValue
        alert = aps["alert"]
        attributesType = aps["attributes-type"]?.stringValue
        attributes = aps["attributes"].flatMap { $0.objectValue == nil ? nil : $0.encoded() }
        wantsToken = aps["input-push-token"]?.doubleValue == 1
        channelID = aps["input-push-channel"]?.stringValue
        if event != .end, contentState == nil { throw ActivityPayloadError("aps.content-state must be a dictionary in a \(event.rawValue)") }
    }
}

/// Why a push is not a Live Activity push the device can apply.
package struct ActivityPayloadError: Error, CustomStringConvertible, Sendable {
    package var description: String
    init(_ description: String) { self.description = description }
}
