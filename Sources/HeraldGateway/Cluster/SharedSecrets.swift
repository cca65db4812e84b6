import Foundation
import HeraldStore

/// What every node of a cluster must have the same of, kept in the store: the admin token (one sign-in for every
/// node's console and admin API) and the local CA (clients trust one `ca.pem`, and client certificates it issued work
/// on every node). Each node writes them into its data directory too, where the CLI and the quick start look.
enum SharedSecrets {
    /// The cluster's admin token: the store's, or this node's when the store has none yet.
    static func adminToken(store: any ClusterStore, dataDirectory: DataDirectory) async throws -> String {
        let local = try dataDirectory.adminToken()
        let shared = try await store.sharedSecret(named: "admin-token") { Data(local.utf8) }
        let token = String(decoding: shared, as: UTF8.self)
        if token != local { try DataDirectory.writeSecret(Data((token + "\n").utf8), to: dataDirectory.adminTokenPath) }
        return token
    }

    /// Makes the store's CA this node's: the store's, or this node's (created if missing) when the store has none yet.
    /// A node that takes another CA drops its server certificate, so that the CA it has now issues a new one.
    static func shareAuthority(_ authority: LocalCertificateAuthority, store: any ClusterStore) async throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: authority.caCertificatePath) || !manager.fileExists(atPath: authority.caKeyPath) {
            try authority.createAuthority()
        }
        let certificate = try Data(contentsOf: URL(fileURLWithPath: authority.caCertificatePath))
        let key = try Data(contentsOf: URL(fileURLWithPath: authority.caKeyPath))
        // One secret for both halves, so that racing nodes cannot end up with one's certificate and another's key.
        let shared = try await store.sharedSecret(named: "local-ca") { certificate + key }
        guard shared != certificate + key else { return }
        guard let end = shared.range(of: Data("-----END CERTIFICATE-----\n".utf8)) else {
            throw SharedAuthorityError()
        }
        try DataDirectory.writePublic(shared[..<end.upperBound], to: authority.caCertificatePath)
        try DataDirectory.writeSecret(shared[end.upperBound...], to: authority.caKeyPath)
        try? manager.removeItem(atPath: authority.serverCertificatePath)
        try? manager.removeItem(atPath: authority.serverKeyPath)
    }
}

/// The store's CA is not a certificate followed by its key.
struct SharedAuthorityError: Error, CustomStringConvertible {
    var description: String { "the local CA kept in the store cannot be read (secret \"local-ca\")" }
}
