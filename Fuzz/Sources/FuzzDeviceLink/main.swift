import Foundation
import FuzzChecks
import FuzzSupport

// DeviceLinkFuzzCheck: Fuzz/Sources/FuzzChecks; docs/reliability.md says what it checks.

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.check(data, size, with: DeviceLinkFuzzCheck.run)
}

exit(FuzzDriver.run(testOneInput))
