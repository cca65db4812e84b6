import Foundation
import HeraldWire

/// `.apns` files (`herald send` and the console take them): any bytes read; with a "Simulator Target Bundle",
/// the payload is the same JSON object without it.
package enum SimulatorPushFileFuzzCheck {
    package static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let bytes = Data(input)
        let file = SimulatorPushFile(data: bytes)
        guard case .object(var root)? = try? JSONValue.parse(bytes), let target = root.removeValue(forKey: SimulatorPushFile.targetBundleKey)
        else {
            if file.payload != bytes || file.targetBundle != nil { throw FuzzFinding("a file without the key was changed") }
            return
        }
        if file.targetBundle != target.stringValue { throw FuzzFinding("the target bundle differs from the file's") }
        if (try? JSONValue.parse(file.payload)) != .object(root) { throw FuzzFinding("the payload is not the file's JSON less the key") }
    }
}
