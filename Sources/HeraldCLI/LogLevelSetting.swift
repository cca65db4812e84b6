public import Logging

/// `HERALD_LOG_LEVEL`: how much `herald` logs to standard error (default `info`; `debug` shows each device link
/// and each refused request, never tokens, JWTs or payloads).
public enum LogLevelSetting {
    public static let variable = "HERALD_LOG_LEVEL"

    /// The level `environment` asks for, and a message for a person when its value is not a level.
    public static func level(in environment: [String: String]) -> (level: Logger.Level, problem: String?) {
        guard let text = environment[variable], !text.isEmpty else { return (.info, nil) }
        if let level = Logger.Level(rawValue: text.lowercased()) { return (level, nil) }
        let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
        return (.info, "herald: \(variable)=\(text) is not a log level; logging at info (use one of \(levels))")
    }
}
