import CFuzzerDriver

/// Runs libFuzzer on `testOneInput` with the program's arguments and returns its exit status.
///
/// Each fuzz target's `main.swift` defines `testOneInput` as `LLVMFuzzerTestOneInput` (libFuzzer's own `main`,
/// linked in but not the program's, refers to it) and ends with `exit(FuzzDriver.run(testOneInput))`: SwiftPM gives
/// every executable a main of its own, which calls libFuzzer's driver.
public enum FuzzDriver {
    public static func run(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
    }

    /// The input as a byte array (libFuzzer passes a null pointer for an empty input).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Stops the run with `message`: libFuzzer reports the crash and keeps the input that caused it.
    public static func fail(_ message: String) -> Never {
        fatalError(message)
    }

    /// Runs `check` on the input; what it throws stops the run (``fail(_:)``).
    public static func check(_ data: UnsafePointer<UInt8>?, _ size: Int, with check: ([UInt8]) throws -> Void) -> CInt {
        do {
            try check(bytes(data, size))
        } catch {
            fail("\(error)")
        }
        return 0
    }
}
