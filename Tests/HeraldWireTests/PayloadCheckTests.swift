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
}
