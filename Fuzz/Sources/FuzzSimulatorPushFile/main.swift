import Foundation
import FuzzSupport
import HeraldWire

// `.apns` files (`herald send` and the console take them): any bytes read; with a "Simulator Target Bundle",
// the payload is the same JSON object without it.

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(FuzzDriver.bytes(data, size))
    let file = SimulatorPushFile(data: bytes)
    guard case .object(var root)? = try? JSONValue.parse(bytes), let target = root.removeValue(forKey: SimulatorPushFile.targetBundleKey)
    else {
        if file.payload != bytes || file.targetBundle != nil { FuzzDriver.fail("a file without the key was changed") }
        return 0
    }
    if file.targetBundle != target.stringValue { FuzzDriver.fail("the target bundle differs from the file's") }
    if (try? JSONValue.parse(file.payload)) != .object(root) { FuzzDriver.fail("the payload is not the file's JSON less the key") }
    return 0
}

exit(FuzzDriver.run(testOneInput))
