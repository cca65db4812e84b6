import Foundation
import HeraldCLI
import Logging
import Testing

/// `HERALD_LOG_LEVEL` sets how much `herald` logs; a value that is not a level is said so, never fatal.
@Suite struct LogLevelTests {
    @Test func theVariableNamesTheLevelInAnyCase() {
        #expect(LogLevelSetting.level(in: [:]) == (.info, nil))
        #expect(LogLevelSetting.level(in: ["HERALD_LOG_LEVEL": ""]) == (.info, nil))
        #expect(LogLevelSetting.level(in: ["HERALD_LOG_LEVEL": "debug"]) == (.debug, nil))
        #expect(LogLevelSetting.level(in: ["HERALD_LOG_LEVEL": "Warning"]) == (.warning, nil))
        let (level, problem) = LogLevelSetting.level(in: ["HERALD_LOG_LEVEL": "loud"])
        #expect(level == .info)
        #expect(
            problem
                == "herald: HERALD_LOG_LEVEL=loud is not a log level; logging at info (use one of trace, debug, info, notice, warning, error, critical)"
        )
    }

    private func serve(_ level: String) throws -> HeraldProcess {
        try HeraldProcess.start(
            [
                "serve", "--data-dir", CommandRunTests.temporaryDirectory(), "--provider-port", "0", "--device-port", "0", "--console-port", "0",
                "--channels-port", "0", "--webpush-port", "0", "--quiet",
            ],
            environment: ["HERALD_LOG_LEVEL": level]
        )
    }

    @Test func debugShowsTheGatewaysDebugLinesAndABadValueIsToldOnce() async throws {
        let debug = try serve("debug")
        defer { debug.terminate() }
        #expect(await debug.waitForErrorOutput(containing: "Starting service"), "\(debug.errorOutput)")

        let loud = try serve("loud")
        defer { loud.terminate() }
        #expect(await loud.waitForErrorOutput(containing: "provider API listening"), "\(loud.errorOutput)")
        #expect(loud.errorOutput.components(separatedBy: "HERALD_LOG_LEVEL=loud is not a log level").count == 2)
        #expect(!loud.errorOutput.contains(" debug "))
    }
}
