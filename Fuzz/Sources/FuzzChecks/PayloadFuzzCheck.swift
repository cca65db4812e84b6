import Foundation
import HeraldWire

/// PayloadCheck for every push type: it never crashes, refuses only with its documented reasons, and its one-pass
/// reading agrees with JSONParser: what it accepts parses as a JSON object, and what does not parse it refuses as
/// BadPayload (or PayloadEmpty / PayloadTooLarge before reading).
package enum PayloadFuzzCheck {
    package static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let body = Data(input)
        let parsed = try? JSONValue.parse(body)
        let allowed: Set<APNsReason> = [.payloadEmpty, .payloadTooLarge, .badPayload, .invalidPushType]
        for pushType in PushType.allKnown + [PushType(rawValue: "unknown")] {
            guard let error = refusal({ () throws(Rejection) in try PayloadCheck.check(body, pushType: pushType) }) else {
                guard case .object? = parsed else { throw FuzzFinding("PayloadCheck accepts what is no JSON object for \(pushType)") }
                continue
            }
            if !allowed.contains(error.reason) { throw FuzzFinding("PayloadCheck refused with \(error.reason)") }
            if parsed != nil, error.reason == .badPayload, error.detail == "payload is not valid JSON" {
                throw FuzzFinding("PayloadCheck calls JSON that JSONParser reads \"not valid JSON\" for \(pushType)")
            }
            if parsed == nil, !body.isEmpty, body.count <= pushType.maximumPayloadSize, error.reason != .badPayload {
                throw FuzzFinding("PayloadCheck refused what is not JSON with \(error.reason) for \(pushType)")
            }
        }
    }
}

/// The error `body` throws, or nil when it returns.
func refusal<Failure: Error>(_ body: () throws(Failure) -> Void) -> Failure? {
    do throws(Failure) {
        try body()
        return nil
    } catch {
        return error
    }
}
