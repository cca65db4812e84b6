import Foundation
import HeraldWire
import Testing

/// The device link's notification message: written member by member, it must read back as it was sent.
@Suite struct DeviceLinkMessageTests {
    private func notification(collapseID: String?, expiration: Int64?) -> LinkNotification {
        LinkNotification(
            apnsID: UUID(), uniqueID: UUID(), topic: "com.example.app.voip", bundleID: "com.example.app",
            deviceToken: String(repeating: "ab", count: 32), pushType: .voip, priority: .immediate,
            collapseID: collapseID, expiration: expiration, receivedAt: 1_780_000_000_123,
            payload: Data(#"{"aps":{"alert":{"title":"Quote \" and \\ slash /","body":"é"}},"n":[1,2.5,null]}"#.utf8)
        )
    }

    @Test(arguments: [(String?.none, Int64?.none), ("weekly \"digest\"", 0), (nil, 1_780_003_600)])
    func aNotificationReadsBackAsSent(collapseID: String?, expiration: Int64?) throws {
        let sent = notification(collapseID: collapseID, expiration: expiration)
        let text = DeviceLinkMessage.notification(sent).encoded()
        #expect(Array(text.utf8) == DeviceLinkMessage.notification(sent).encodedUTF8())
        guard case .notification(let read) = try DeviceLinkMessage.decode(text) else {
            Issue.record("not read as a notification: \(text)")
            return
        }
        #expect(read.apnsID == sent.apnsID && read.uniqueID == sent.uniqueID)
        #expect(read.topic == sent.topic && read.bundleID == sent.bundleID && read.deviceToken == sent.deviceToken)
        #expect(read.pushType == sent.pushType && read.priority == sent.priority && read.receivedAt == sent.receivedAt)
        #expect(read.collapseID == sent.collapseID && read.expiration == sent.expiration)
        #expect(read.payload == sent.payload)  // byte for byte: the device gets what the provider sent
        // Keys in sorted order, the payload spliced in last exactly as the provider sent it.
        let payloadMember = #","payload":"# + String(decoding: sent.payload, as: UTF8.self) + "}"
        #expect(text.hasPrefix(#"{"apnsID":""#))
        #expect(text.hasSuffix(payloadMember))
        // Without the payload, the text is exactly what the generic writer makes of the same members.
        let head = String(text.dropLast(payloadMember.count)) + "}"
        #expect(String(decoding: try JSONValue.parse(Data(head.utf8)).encoded(), as: UTF8.self) == head)
    }

    private static let head =
        #"{"type":"notification","apnsID":"6a0b0c1d-2e3f-4a5b-8c6d-7e8f9a0b1c2d","#
        + #""uniqueID":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","topic":"t","bundleID":"t","deviceToken":"ab","#
        + #""pushType":"alert","priority":10,"receivedAt":1,"#

    /// A refusal names the app it refuses; one from a gateway that did not (before the field) still reads.
    @Test func aRefusalNamesItsTopic() throws {
        let refusal = DeviceLinkMessage.error(reason: "BadTopic", message: "not a bundle id", topic: "com..bad")
        #expect(try DeviceLinkMessage.decode(refusal.encoded()) == refusal)
        #expect(refusal.encoded().contains(#""topic":"com..bad""#))
        let older = #"{"type":"error","reason":"NotRegistered","message":"no registration"}"#
        #expect(try DeviceLinkMessage.decode(older) == .error(reason: "NotRegistered", message: "no registration", topic: nil))
    }

    /// What the person did reads back as sent; a reply carries its text, an opening none.
    @Test func aResponseReadsBackAsSent() throws {
        let id = try #require(APNsID.parse("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"))
        for response in [
            DeviceLinkMessage.response(uniqueID: id, action: "REPLY", text: "On my way \u{1F44B}"),
            .response(uniqueID: id, action: "com.apple.UNNotificationDefaultActionIdentifier", text: nil),
        ] {
            #expect(try DeviceLinkMessage.decode(response.encoded()) == response)
        }
        #expect(throws: DeviceLinkMessage.DecodingError.self) {
            try DeviceLinkMessage.decode(#"{"type":"response","uniqueID":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}"#)
        }
    }

    @Test func thePayloadIsKeptAsSentAndTheLastOneWins() throws {
        let text = Self.head + #""payload":{"x":1},"payload" :  {"b":[1, {"c":"é"}],"a":2} }"#
        guard case .notification(let read) = try DeviceLinkMessage.decode(text) else {
            Issue.record("not read as a notification")
            return
        }
        #expect(String(decoding: read.payload, as: UTF8.self) == #"{"b":[1, {"c":"é"}],"a":2}"#)
    }

    @Test(arguments: [
        #""payload":[1]}"#, #""payload":"{}"}"#, #""payload":{"a":}}"#, #""payload":{"a":1}"#, #""payload":{"a":"\x"}}"#,
        #""payload":{"a":1}} x"#, #"}"#,
        #""payload":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}",
    ])
    func aBrokenPayloadIsRefused(_ tail: String) {
        #expect(throws: DeviceLinkMessage.DecodingError.self) { try DeviceLinkMessage.decode(Self.head + tail) }
    }
}
