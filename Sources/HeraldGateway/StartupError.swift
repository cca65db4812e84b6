import Foundation
import NIOCore
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// A port the gateway cannot listen on, named with the flag that moves it: the socket's own error
/// ("bind(descriptor:ptr:bytes:): Address already in use") does not say which of the three ports it was.
public struct ListenError: Error, CustomStringConvertible {
    /// The listener: "provider API", "console", "device link".
    public let listener: String
    public let flag: String
    public let host: String
    public let port: Int
    public let errnoCode: CInt

    public var description: String {
        let problem =
            switch errnoCode {
            case EADDRINUSE: "the port is in use (another herald, or another server)"
            case EACCES: "permission denied (ports below 1024 need privileges)"
            case EADDRNOTAVAIL: "this machine has no such address"
            default: String(cString: strerror(errnoCode))
            }
        return "cannot listen on \(host):\(port) for the \(listener): \(problem); choose another with \(flag)"
    }

    /// Runs `body`, naming the listener in the error if binding its socket fails; other errors pass unchanged.
    static func naming<T>(
        _ listener: String, flag: String, host: String, port: Int, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let error as IOError where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode) {
            throw ListenError(listener: listener, flag: flag, host: host, port: port, errnoCode: error.errnoCode)
        }
    }
}

/// A service whose listener's bind errors name it (the console: Hummingbird binds inside `run`).
struct NamedListener: Service {
    let service: any Service
    let listener: String
    let flag: String
    let host: String
    let port: Int

    func run() async throws {
        try await ListenError.naming(listener, flag: flag, host: host, port: port) { try await service.run() }
    }
}

/// A TLS file given to `herald serve` that cannot be used (NIOSSL's own error, `failedToLoadCertificate`, names
/// no file).
public struct TLSFileError: Error, CustomStringConvertible {
    public let path: String
    /// "certificate chain" or "private key".
    public let what: String
    public let flag: String
    public let underlying: any Error

    public var description: String {
        let problem = FileManager.default.isReadableFile(atPath: path) ? "it is not a PEM \(what) (\(underlying))" : "no such file or not readable"
        return "cannot use \(path) as the TLS \(what) (\(flag)): \(problem)"
    }
}
