import Foundation
public import HeraldWire
import Synchronization

/// A client of APNs' channel management API (iOS 18 broadcast channels): create, read, list and delete an app's
/// channels on Apple's management host or a Herald gateway's `--channels-port`, with a provider token.
///
/// ```swift
/// let channels = try APNsChannelClient(endpoint: .developmentChannels, authentication: .token(p8File: "key.p8", keyID: "KEY1234567", teamID: "TEAM123456"))
/// let id = try await channels.create(bundleID: "com.example.app", storagePolicy: .mostRecentMessageStored)
/// await channels.close()
/// ```
public final class APNsChannelClient: Sendable {
    public let endpoint: APNsEndpoint
    private let tokens: ProviderTokenCache
    private let trustRootsPath: String?
    private let connection = Mutex<APNsConnection?>(nil)

    /// - Parameters:
    ///   - endpoint: The management host: ``APNsEndpoint/developmentChannels``, ``APNsEndpoint/productionChannels``, or a
    ///     gateway's channels port.
    ///   - authentication: A provider key (the management API takes tokens here; certificates are not supported).
    ///   - trustRootsPath: PEM of the CA to trust (a Herald gateway's `DATA_DIR/tls/ca.pem`); nil trusts the system's.
    public init(endpoint: APNsEndpoint, authentication: APNsAuthentication, trustRootsPath: String? = nil) throws(APNsClientError) {
        guard let signer = authentication.tokenSigner else {
            throw APNsClientError(.invalidCredentials, "the channel management client authenticates with a provider key (.p8)")
        }
        self.endpoint = endpoint
        self.trustRootsPath = trustRootsPath
        tokens = ProviderTokenCache(key: signer.key, keyID: signer.keyID, teamID: signer.teamID)
    }

    /// Creates a channel and returns its id.
    public func create(bundleID: String, storagePolicy: ChannelStoragePolicy) async throws(APNsClientError) -> String {
        let body = Data(#"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#.utf8)
        let response = try await call("POST", bundleID: bundleID, resource: "channels", body: body, expecting: 201)
        guard let id = response.header("apns-channel-id") else {
            throw APNsClientError(.rejected, "the server created a channel but named none (no apns-channel-id)", status: response.status)
        }
        return id
    }

    /// The storage policy of one of the app's channels.
    public func storagePolicy(ofChannel id: String, bundleID: String) async throws(APNsClientError) -> ChannelStoragePolicy {
        let response = try await call("GET", bundleID: bundleID, resource: "channels", channelID: id, expecting: 200)
        guard let value = (try? JSONValue.parse(response.body))?["message-storage-policy"]?.integerValue,
            let policy = ChannelStoragePolicy(rawValue: Int(value))
        else {
            throw APNsClientError(.rejected, "the server's answer names no message-storage-policy", status: response.status)
        }
        return policy
    }

    /// The ids of the app's channels.
    public func channels(bundleID: String) async throws(APNsClientError) -> [String] {
        let response = try await call("GET", bundleID: bundleID, resource: "all-channels", expecting: 200)
        guard case .array(let ids) = (try? JSONValue.parse(response.body))?["channels"] else {
            throw APNsClientError(.rejected, "the server's answer has no channels list", status: response.status)
        }
        return ids.compactMap(\.stringValue)
    }

    /// Deletes one of the app's channels; its id is never used again.
    public func delete(channel id: String, bundleID: String) async throws(APNsClientError) {
        _ = try await call("DELETE", bundleID: bundleID, resource: "channels", channelID: id, expecting: 204)
    }

    public func close() async {
        let open = connection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        await open?.close()
    }

    private func call(
        _ method: String, bundleID: String, resource: String, channelID: String? = nil, body: Data = Data(), expecting status: Int
    ) async throws(APNsClientError) -> APNsResponse {
        var headers: [(name: String, value: String)] = [
            (":method", method), (":scheme", endpoint.usesTLS ? "https" : "http"), (":path", "/1/apps/\(bundleID)/\(resource)"),
            (":authority", endpoint.host), ("authorization", "bearer \(tokens.token().jwt)"),
        ]
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        let response: APNsResponse
        do {
            response = try await open().send(headers: headers, body: body)
        } catch let error as APNsClientError {
            throw error
        } catch {
            await close()
            throw APNsClientError(.connectionClosed, "the channel management request got no answer", underlying: error)
        }
        guard response.status == status else {
            let reason = response.reason
            throw APNsClientError(
                .rejected, "\(response.status) \(reason?.rawValue ?? "without a reason")", status: response.status, reason: reason)
        }
        return response
    }

    private func open() async throws -> APNsConnection {
        if let open = connection.withLock({ $0 }), open.isActive { return open }
        let opened: APNsConnection
        do {
            opened = try await APNsConnection.connect(to: endpoint.url, trusting: trustRootsPath)
        } catch {
            throw APNsClientError(.connectionFailed, "cannot connect to \(endpoint)", underlying: error)
        }
        connection.withLock { $0 = opened }
        return opened
    }
}

extension APNsEndpoint {
    /// Apple's management host for development (sandbox) broadcast channels.
    public static let developmentChannels = APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)
    /// Apple's management host for production broadcast channels.
    public static let productionChannels = APNsEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196)
}
