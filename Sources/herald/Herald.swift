import ArgumentParser
import Foundation
import HeraldCLI
import Logging

@main
struct Herald {
    static func main() async {
        let (level, problem) = LogLevelSetting.level(in: ProcessInfo.processInfo.environment)
        if let problem { FileHandle.standardError.write(Data((problem + "\n").utf8)) }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        await HeraldCommand.main()
    }
}
