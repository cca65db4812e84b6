import ArgumentParser
import HeraldCLI
import Logging

@main
struct Herald {
    static func main() async {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        await HeraldCommand.main()
    }
}
