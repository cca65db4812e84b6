import Logging

extension Logger {
    /// This logger at `debug` or above: PostgresNIO traces every message of the protocol, rows and parameters
    /// included (device tokens, payloads), which no level of Herald's logging may show.
    var withoutProtocolTrace: Logger {
        var logger = self
        if logger.logLevel < .debug { logger.logLevel = .debug }
        return logger
    }
}
