import Foundation
import HeraldWire
import Testing

@Suite struct PayloadCheckTests {
    private func reason(_ text: String, _ pushType: PushType = .alert) -> APNsReason? {
        do {
            try PayloadCheck.check(Data(text.utf8), pushType: pushType)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func acceptsWellFormedPayloads() {
        #expect(reason(#"{"aps":{"alert":"Hi","badge":1,"sound":"default"}}"#) == nil)
        #expect(reason(#"{"aps":{"alert":{"title":"T","loc-args":["a"]},"sound":{"critical":1,"name":"x","volume":0.5}},"custom":[1]}"#) == nil)
        #expect(reason(#"{"aps":{"content-available":1}}"#, .background) == nil)
        #expect(reason(#"{"aps":{"interruption-level":"time-sensitive","relevance-score":0.7}}"#) == nil)
        #expect(reason(#"{"mdm":"e3b0c442"}"#, .mdm) == nil)
    }

    /// A member sent as null counts as absent, as APNs takes it: django-push-notifications sends `"badge": null`,
    /// `"sound": null` and `"thread-id": null` whenever they are not set.
    @Test func nullMembersAreAbsent() {
        #expect(reason(#"{"aps":{"alert":"hi","badge":null,"sound":null,"thread-id":null}}"#) == nil)
        #expect(reason(#"{"aps":{"alert":{"title":"T","body":null},"sound":{"name":"x","volume":null}}}"#) == nil)
        #expect(reason(#"{"aps":{"content-available":1,"badge":null,"sound":null}}"#, .background) == nil, "null is no badge")
        #expect(reason(#"{"aps":{"badge":"null"}}"#) == .badPayload, "the string is not null")
    }

    @Test(arguments: [
        #"{"aps":{"badge":"x"}}"#, #"{"aps":{"alert":3}}"#, #"{"aps":"hello"}"#, #"{"aps":{"sound":{"volume":2}}}"#,
        #"{"aps":{"alert":{"title":5}}}"#, #"{"aps":{"interruption-level":"loud"}}"#, #"{"aps":{"relevance-score":3}}"#,
        #"{"aps":{"thread-id":1}}"#, #"[1,2]"#, #"{"aps":"#, "not json",
        // Malformed after a well-formed aps, in parts that are only skipped, or a key sent twice.
        #"{"aps":{"alert":"Hi"}} x"#, #"{"aps":{"badge":1,}}"#, #"{"aps":{},"custom":[1,]}"#, #"{"custom":{"a":1 "b":2}}"#,
        #"{"custom":"\x"}"#, #"{"aps":{"badge":1,"badge":"x"}}"#, #"{"aps":{"alert":{"title":"T"}},"aps":{"sound":7}}"#,
        #"{"aps":{"alert":{"loc-args":["a",{}]}}}"#, #"{"aps":{"content-state":[]}}"#,
    ])
    func rejectsWrongShapesAsBadPayload(_ text: String) {
        #expect(reason(text) == .badPayload)
    }

    @Test func skippedPartsAreCheckedAsJSON() {
        #expect(reason(#"{"custom":{"s":"a\"b\u00e9","n":[1,-2.5e3,true,null,{}]},"aps":{"alert":"é"}}"#) == nil)
        let invalidUTF8: [UInt8] = Array(#"{"custom":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let error = #expect(throws: Rejection.self) { try PayloadCheck.check(Data(invalidUTF8), pushType: .alert) }
        #expect(error?.reason == .badPayload)
        let deep = #"{"custom":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(reason(deep) == .badPayload)
    }

    @Test func emptyBodyIsPayloadEmpty() {
        #expect(reason("") == .payloadEmpty)
    }

    @Test func sizeLimitsDependOnPushType() {
        let filler = { (size: Int) in #"{"aps":{"alert":""# + String(repeating: "a", count: size - 20) + #""}}"# }
        #expect(filler(4096).utf8.count == 4096)
        #expect(reason(filler(4096)) == nil)
        #expect(reason(filler(4097)) == .payloadTooLarge)
        #expect(reason(filler(5120), .voip) == nil)
        #expect(reason(filler(5121), .voip) == .payloadTooLarge)
    }

    @Test func backgroundPushesMustBeSilent() {
        #expect(reason(#"{"aps":{"content-available":1,"alert":"x"}}"#, .background) == .invalidPushType)
        #expect(reason(#"{"aps":{"badge":1}}"#, .background) == .invalidPushType)
        #expect(reason(#"{"custom":1}"#, .background) == .invalidPushType)
    }

    @Test func liveActivityPushesFollowApplesRules() {
        let start =
            #"{"aps":{"event":"start","timestamp":1800000000,"content-state":{"progress":0.1},"attributes-type":"DeliveryAttributes","#
            + #""attributes":{"order":"A1"},"alert":{"title":"On its way","body":"Out for delivery"},"input-push-token":1}}"#
        #expect(reason(start, .liveActivity) == nil)
        #expect(
            reason(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"progress":0.5},"stale-date":1800003600}}"#, .liveActivity)
                == nil)
        #expect(reason(#"{"aps":{"event":"end","timestamp":1800000000,"dismissal-date":1800007200}}"#, .liveActivity) == nil)
        #expect(
            reason(
                #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":"x","input-push-channel":"ch"}}"#,
                .liveActivity) == nil)
    }

    @Test(arguments: [
        #"{"custom":1}"#,  // no aps
        #"{"aps":{"timestamp":1800000000,"content-state":{}}}"#,  // no event
        #"{"aps":{"event":"update","content-state":{}}}"#,  // no timestamp
        #"{"aps":{"event":"update","timestamp":"1800000000","content-state":{}}}"#,  // a timestamp that is not a number
        #"{"aps":{"event":"update","timestamp":1800000000}}"#,  // an update without its state
        #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes":{},"alert":"x"}}"#,  // no attributes-type
        #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","alert":"x"}}"#,  // no attributes
        #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{}}}"#,  // no alert
        #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":"x","input-push-token":1,"input-push-channel":"c"}}"#,
        #"{"aps":{"event":"update","timestamp":1,"content-state":{},"input-push-token":1}}"#,  // only a start asks for a token
        #"{"aps":{"event":"end","timestamp":1,"input-push-channel":"c"}}"#,
        #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":"x","input-push-token":true}}"#,
        #"{"aps":{"event":"pause","timestamp":1,"content-state":{}}}"#,
    ])
    func liveActivityPushesThatBreakThemAreBadPayload(_ text: String) {
        #expect(reason(text, .liveActivity) == .badPayload)
    }

    /// The Live Activity rules bind only the `liveactivity` push type: an alert may carry any of these keys, or none.
    @Test func liveActivityRulesBindOnlyItsPushType() {
        #expect(reason(#"{"aps":{"alert":"x","event":"update"}}"#) == nil)
        #expect(reason(#"{"aps":{"alert":"x"}}"#) == nil)
    }
}
