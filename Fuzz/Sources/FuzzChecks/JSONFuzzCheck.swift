import Foundation
import HeraldWire

/// Differential: HeraldWire's JSONParser against Foundation's JSONSerialization — the same accept/reject and the
/// same values, integers kept apart from doubles — and the parser's own promises: what it reads, written back
/// with JSONWriter, reads the same; `parseObject(_:keepingRaw:)` agrees with `parse(_:)`.
package enum JSONFuzzCheck {
    package static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let bytes = Data(input)
        let ours = try? JSONValue.parse(bytes)
        if let ours {
            try checkRoundTrip(ours)
        }
        try checkKeepingRaw(bytes, parsed: ours)
        guard JSONReference.isCompared(bytes, parsed: ours) else { return }
        let reference = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])
        switch (ours, reference) {
        case (nil, nil): break
        case (_?, nil): throw FuzzFinding("JSONParser accepts what JSONSerialization refuses")
        case (nil, _?):
            if (try? JSONValue.parse(JSONReference.withoutTrailingCommas(bytes))) == nil {
                throw FuzzFinding("JSONSerialization accepts what JSONParser refuses")
            }
        case (let ours?, let reference?):
            if !JSONReference.isSame(ours, reference) {
                throw FuzzFinding("JSONParser read \(ours), JSONSerialization \(reference)")
            }
        }
    }

    /// What JSONWriter writes of a parsed value parses back to the same value.
    private static func checkRoundTrip(_ value: JSONValue) throws(FuzzFinding) {
        let encoded = value.encoded()
        guard let again = try? JSONValue.parse(encoded) else {
            throw FuzzFinding("JSONWriter wrote what JSONParser refuses: \(String(decoding: encoded, as: UTF8.self))")
        }
        if again != value { throw FuzzFinding("\(value) written and read back is \(again)") }
    }

    /// `parseObject(_:keepingRaw:)` accepts exactly the objects `parse(_:)` accepts, with the same members, and the
    /// raw member's bytes read as that member's value (the last one of a repeated key).
    private static func checkKeepingRaw(_ bytes: Data, parsed: JSONValue?) throws(FuzzFinding) {
        let split = try? JSONValue.parseObject(bytes, keepingRaw: "payload")
        guard case .object(var members)? = parsed else {
            if split != nil { throw FuzzFinding("parseObject accepts what parse refuses or reads as no object") }
            return
        }
        guard let split else { throw FuzzFinding("parseObject refuses an object that parse accepts") }
        let payload = members.removeValue(forKey: "payload")
        if split.members != members { throw FuzzFinding("parseObject's members differ from parse's") }
        switch (payload, split.raw) {
        case (nil, nil): break
        case (let payload?, let raw?):
            if (try? JSONValue.parse(raw)) != payload { throw FuzzFinding("the kept raw payload does not read as the payload") }
        default: throw FuzzFinding("parseObject kept a raw payload where parse found none, or the reverse")
        }
    }
}
