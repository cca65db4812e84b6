import Foundation
import FuzzSupport
import HeraldWire

// Differential: HeraldWire's JSONParser against Foundation's JSONSerialization — the same accept/reject and the
// same values, integers kept apart from doubles — and the parser's own promises: what it reads, written back
// with JSONWriter, reads the same; `parseObject(_:keepingRaw:)` agrees with `parse(_:)`.

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(FuzzDriver.bytes(data, size))
    let ours = try? JSONValue.parse(bytes)
    if let ours {
        checkRoundTrip(ours)
    }
    checkKeepingRaw(bytes, parsed: ours)
    if JSONReference.isCompared(bytes, parsed: ours) {
        let reference = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])
        switch (ours, reference) {
        case (nil, nil): break
        case (_?, nil): FuzzDriver.fail("JSONParser accepts what JSONSerialization refuses")
        case (nil, _?):
            if (try? JSONValue.parse(JSONReference.withoutTrailingCommas(bytes))) == nil {
                FuzzDriver.fail("JSONSerialization accepts what JSONParser refuses")
            }
        case (let ours?, let reference?):
            if !JSONReference.isSame(ours, reference) {
                FuzzDriver.fail("JSONParser read \(ours), JSONSerialization \(reference)")
            }
        }
    }
    return 0
}

/// What JSONWriter writes of a parsed value parses back to the same value.
func checkRoundTrip(_ value: JSONValue) {
    let encoded = value.encoded()
    guard let again = try? JSONValue.parse(encoded) else {
        FuzzDriver.fail("JSONWriter wrote what JSONParser refuses: \(String(decoding: encoded, as: UTF8.self))")
    }
    if again != value { FuzzDriver.fail("\(value) written and read back is \(again)") }
}

/// `parseObject(_:keepingRaw:)` accepts exactly the objects `parse(_:)` accepts, with the same members, and the
/// raw member's bytes read as that member's value (the last one of a repeated key).
func checkKeepingRaw(_ bytes: Data, parsed: JSONValue?) {
    let split = try? JSONValue.parseObject(bytes, keepingRaw: "payload")
    guard case .object(var members)? = parsed else {
        if split != nil { FuzzDriver.fail("parseObject accepts what parse refuses or reads as no object") }
        return
    }
    guard let split else { FuzzDriver.fail("parseObject refuses an object that parse accepts") }
    let payload = members.removeValue(forKey: "payload")
    if split.members != members { FuzzDriver.fail("parseObject's members differ from parse's") }
    switch (payload, split.raw) {
    case (nil, nil): break
    case (let payload?, let raw?):
        if (try? JSONValue.parse(raw)) != payload { FuzzDriver.fail("the kept raw payload does not read as the payload") }
    default: FuzzDriver.fail("parseObject kept a raw payload where parse found none, or the reverse")
    }
}

exit(FuzzDriver.run(testOneInput))
