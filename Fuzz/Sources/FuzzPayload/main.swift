import Foundation
import FuzzSupport
import HeraldWire

// PayloadCheck for every push type: it never crashes, refuses only with its documented reasons, and its one-pass
// reading agrees with JSONParser: what it accepts parses as a JSON object, and what does not parse it refuses as
// BadPayload (or PayloadEmpty / PayloadTooLarge before reading).

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = Data(FuzzDriver.bytes(data, size))
    let parsed = try? JSONValue.parse(body)
    let allowed: Set<APNsReason> = [.payloadEmpty, .payloadTooLarge, .badPayload, .invalidPushType]
    for pushType in PushType.allKnown + [PushType(rawValue: "unknown")] {
        do throws(Rejection) {
            try PayloadCheck.check(body, pushType: pushType)
            guard case .object? = parsed else { FuzzDriver.fail("PayloadCheck accepts what is no JSON object for \(pushType)") }
        } catch {
            if !allowed.contains(error.reason) { FuzzDriver.fail("PayloadCheck refused with \(error.reason)") }
            if parsed != nil, error.reason == .badPayload, error.detail == "payload is not valid JSON" {
                FuzzDriver.fail("PayloadCheck calls JSON that JSONParser reads \"not valid JSON\" for \(pushType)")
            }
            if parsed == nil, !body.isEmpty, body.count <= pushType.maximumPayloadSize, error.reason != .badPayload {
                FuzzDriver.fail("PayloadCheck refused what is not JSON with \(error.reason) for \(pushType)")
            }
        }
    }
    return 0
}

exit(FuzzDriver.run(testOneInput))
