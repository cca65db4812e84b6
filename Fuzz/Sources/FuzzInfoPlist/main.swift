import Foundation
import FuzzChecks
import FuzzSupport

// InfoPlistFuzzCheck: Fuzz/Sources/FuzzChecks; docs/reliability.md says what it checks.

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.check(data, size, with: InfoPlistFuzzCheck.run)
}

exit(FuzzDriver.run(testOneInput))
