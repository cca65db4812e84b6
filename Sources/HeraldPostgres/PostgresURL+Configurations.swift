import HeraldStore
import NIOCore
import NIOSSL
import PostgresNIO

extension PostgresURL {
    /// NIOSSL's client configuration for ``tlsMode``; nil when the connection is not encrypted.
    var tlsConfiguration: TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable: return nil
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let rootCertificatePath { configuration.trustRoots = .file(rootCertificatePath) }
        return configuration
    }

    /// The pool's configuration: at least one connection and at most `maximumConnections`, each connecting within
    /// `connectTimeout` and starting its sessions with `parameters` (`SET` values, such as `lock_timeout`).
    func clientConfiguration(
        maximumConnections: Int, connectTimeout: Duration, parameters: [(String, String)]
    ) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch (tlsMode, tlsConfiguration) {
            case (.prefer, let configuration?): .prefer(configuration)
            case (_, let configuration?): .require(configuration)
            case (_, nil): .disable
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        // One connection is made as the pool starts and kept (with PostgresNIO's keep-alive), so the first call does
        // not wait for a connection to be made.
        configuration.options.minimumConnections = min(1, maximumConnections)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.additionalStartupParameters = parameters
        return configuration
    }

    /// A single connection's configuration (the commit listener's, a migration's, a probe's).
    ///
    /// - Throws: ``StoreError`` `.unavailable` when the CA file `sslrootcert` names cannot be read.
    func connectionConfiguration(connectTimeout: Duration) throws(StoreError) -> PostgresConnection.Configuration {
        var tls = PostgresConnection.Configuration.TLS.disable
        if let tlsConfiguration {
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: tlsConfiguration)
            } catch {
                throw StoreError(
                    .unavailable, "cannot set up TLS for PostgreSQL at \(endpoint) (sslrootcert \(rootCertificatePath ?? "-")): \(error)")
            }
            tls = tlsMode == .prefer ? .prefer(context) : .require(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = TimeAmount(connectTimeout)
        return configuration
    }
}
