import Foundation
import FuzzChecks
import FuzzSupport

// ProviderTokenFuzzCheck: Fuzz/Sources/FuzzChecks; docs/reliability.md says what it checks.

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.check(data, size, with: ProviderTokenFuzzCheck.run)
}

exit(FuzzDriver.run(testOneInput))
