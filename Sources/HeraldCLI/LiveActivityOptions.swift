import ArgumentParser
import Foundation
import HeraldWire

/// `herald send --live-activity start|update|end`: the ActivityKit push a provider sends to an activity's push token
/// (or, for a start, to the app's push-to-start token), built from the payload file and these flags.
struct LiveActivityOptions: ParsableArguments {
    enum Event: String, ExpressibleByArgument, CaseIterable {
        case start, update, end
    }

    @Option(
        name: .customLong("live-activity"),
        help: "start, update or end: a liveactivity push (topic BUNDLE.push-type.liveactivity, aps.event and aps.timestamp filled in).")
    var event: Event?

    @Option(name: .customLong("attributes-type"), help: "With --live-activity start: the ActivityAttributes type's name.")
    var attributesType: String?

    @Option(name: .customLong("stale-date"), help: "With --live-activity: UNIX time after which the activity shows as stale.")
    var staleDate: Int64?

    @Option(name: .customLong("dismissal-date"), help: "With --live-activity end: UNIX time at which the ended activity leaves the screen.")
    var dismissalDate: Int64?

    func validate() throws {
        guard event == nil else { return }
        for (flag, given) in [
            ("--attributes-type", attributesType != nil), ("--stale-date", staleDate != nil), ("--dismissal-date", dismissalDate != nil),
        ]
        where given {
            throw ValidationError("\(flag) goes with --live-activity start|update|end")
        }
    }

    /// The topic with the Live Activity suffix added to a bare bundle id.
    static func topic(_ topic: String) -> String {
        PushType.suffixed(topic) == .liveActivity ? topic : topic + PushType.liveActivity.topicSuffix
    }

    /// `payload` with `aps.event` and `aps.timestamp` (now) filled in where absent, and the flags' keys set.
    ///
    /// - Throws: A message naming the conflict when the payload's own `event` differs from the flag's.
    func payload(_ payload: Data, event: Event, now: Date) throws -> Data {
        guard case .object(var root) = try? JSONValue.parse(payload) else { return payload }  // PayloadCheck says what is wrong
        var aps: [String: JSONValue] = [:]
        if let existing = root["aps"] {
            guard case .object(let members) = existing else { return payload }
            aps = members
        }
        if let written = aps["event"]?.stringValue, written != event.rawValue {
            throw ValidationError("the payload's aps.event is \"\(written)\", but --live-activity says \(event.rawValue)")
        }
        aps["event"] = .string(event.rawValue)
        if aps["timestamp"] == nil { aps["timestamp"] = .integer(Int64(now.timeIntervalSince1970.rounded(.down))) }
        if let attributesType { aps["attributes-type"] = .string(attributesType) }
        if let staleDate { aps["stale-date"] = .integer(staleDate) }
        if let dismissalDate { aps["dismissal-date"] = .integer(dismissalDate) }
        root["aps"] = .object(aps)
        return JSONValue.object(root).encoded()
    }
}
