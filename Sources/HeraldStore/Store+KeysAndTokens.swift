public import Foundation
public import HeraldWire

/// What the CLI (`herald keys`, `herald tokens`) and the console both do to keys and tokens, in one place.
extension Store {
    /// Revokes a key: from then on the provider API refuses tokens it signed (403 Forbidden). A key revoked before
    /// keeps its first revocation time.
    ///
    /// - Returns: The key as stored now; nil when there is no such key.
    public func revokeKey(teamID: String, keyID: String, at date: Date) async throws(StoreError) -> ProviderKey? {
        guard var key = try await key(teamID: teamID, keyID: keyID) else { return nil }
        if key.revokedAt == nil {
            key.revokedAt = date
            try await saveKey(key)
        }
        return key
    }

    /// Issues the token of a new virtual device for the app `bundleID`: a device that never comes online, for
    /// trying a provider against (its notifications are accepted, never delivered).
    ///
    /// ```swift
    /// let record = try await store.issueVirtualToken(bundleID: "com.example.app", environment: .development, at: Date())
    /// print(record.token.hex)
    /// ```
    public func issueVirtualToken(bundleID: String, environment: APNsEnvironment, at date: Date) async throws(StoreError) -> DeviceRecord {
        let record = DeviceRecord(token: .random(), topic: bundleID, environment: environment, createdAt: date)
        try await saveDevice(record)
        return record
    }

    /// Retires a token (``retireDevice(_:as:at:)``: later pushes get 410, what was pending for it is discarded) and
    /// returns its record as it is now. A token retired before is left as it was.
    ///
    /// - Returns: The record; nil when the token is unknown.
    public func retire(_ token: DeviceToken, as retirement: DeviceRecord.Retirement, at date: Date) async throws(StoreError) -> DeviceRecord? {
        guard var record = try await device(token) else { return nil }
        guard record.retiredAt == nil else { return record }
        guard try await retireDevice(token, as: retirement, at: date) else { return nil }
        record.retiredAt = date
        record.retirement = retirement
        return record
    }
}
