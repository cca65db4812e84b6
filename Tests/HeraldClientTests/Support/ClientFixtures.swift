import Crypto
import Foundation
import HeraldClient
import HeraldWire
import Logging

/// Clients and notifications the client tests share.
enum ClientFixtures {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let key = P256.Signing.PrivateKey()
    static let token = DeviceToken(hex: String(repeating: "ab", count: 32))!
    static let notification = APNsNotification(topic: "com.example.app", payload: Data(#"{"aps":{"alert":"hi"}}"#.utf8))

    static var silent: Logger { Logger(label: "herald-client-test") { _ in SwiftLogNoOpLogHandler() } }

    /// A client of `url` with token authentication and quick retries.
    static func client(
        _ url: URL,
        caPath: String? = nil,
        key: P256.Signing.PrivateKey = key,
        logger: Logger = silent,
        configure: (inout APNsClientConfiguration) -> Void = { _ in }
    ) throws -> APNsClient {
        var configuration = APNsClientConfiguration(
            endpoint: try APNsEndpoint.custom(url),
            authentication: .token(privateKey: key, keyID: keyID, teamID: teamID)
        )
        configuration.trustRootsPath = caPath
        configuration.retryPolicy.initialBackoff = .milliseconds(1)
        configuration.retryPolicy.maximumBackoff = .milliseconds(20)
        // Generous: the first seconds of a parallel test run keep both cores busy, and a deadline that passes
        // then would fail a test about something else. Tests about deadlines set their own.
        configuration.requestTimeout = .seconds(30)
        configuration.connectTimeout = .seconds(30)
        configure(&configuration)
        return try APNsClient(configuration: configuration, logger: logger)
    }

    /// Sends to `token` and returns the result or the error.
    static func outcome(
        _ client: APNsClient, _ notification: APNsNotification = notification, to token: DeviceToken = token, timeout: Duration? = nil
    ) async -> Result<APNsSendResult, APNsClientError> {
        do {
            return .success(try await client.send(notification, to: token, timeout: timeout))
        } catch {
            return .failure(error)
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
