public import Crypto

public import struct Foundation.Data

/// Message encryption for Web Push (RFC 8291): the `aes128gcm` content coding (RFC 8188) with keys agreed between the
/// sender's one-off key and the subscriber's `p256dh` key, mixed with the subscriber's `auth` secret.
///
/// Only the subscriber can read a message: the push service sees ciphertext. Herald encrypts for `herald webpush send`
/// and decrypts where it holds the subscriber's key (a virtual subscriber of `herald webpush subscribe`, tests).
///
/// ```swift
/// let subscriber = WebPushKeys()
/// let body = try WebPushEncryption.encrypt(Data("hello".utf8), for: subscriber.subscription)
/// try WebPushEncryption.decrypt(body, with: subscriber)  // "hello"
/// ```
public enum WebPushEncryption {
    /// The record size a sender announces; a message of up to 4,096 bytes is one record.
    public static let recordSize: UInt32 = 4096

    /// The length of the `aes128gcm` header with a 65-byte key id: salt (16), record size (4), key id length (1), key.
    public static let headerLength = 16 + 4 + 1 + 65

    /// What a push message body is not, when it cannot be read.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Encrypts `plaintext` for the subscription as one `aes128gcm` record with a fresh salt and sender key.
    ///
    /// - Parameter padding: Zero bytes added after the delimiter, hiding the message's length.
    /// - Throws: ``Failure`` when the subscription's keys are not a P-256 point and a 16-byte secret.
    public static func encrypt(
        _ plaintext: Data, for subscription: WebPushSubscriptionKeys, padding: Int = 0,
        senderKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
        salt: Data = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    ) throws(Failure) -> Data {
        guard let subscriberKey = try? P256.KeyAgreement.PublicKey(x963Representation: subscription.p256dh) else {
            throw Failure("keys.p256dh is not an uncompressed P-256 public key (65 bytes, starting 0x04)")
        }
        guard subscription.auth.count == 16 else { throw Failure("keys.auth must be 16 bytes, not \(subscription.auth.count)") }
        guard salt.count == 16 else { throw Failure("the salt must be 16 bytes") }
        let senderPublic = senderKey.publicKey.x963Representation
        guard let shared = try? senderKey.sharedSecretFromKeyAgreement(with: subscriberKey) else {
            throw Failure("no key agreement with keys.p256dh")
        }
        let (key, nonce) = contentKeys(
            shared: shared, auth: subscription.auth, subscriberPublic: subscription.p256dh, senderPublic: senderPublic, salt: salt)
        var record = plaintext
        record.append(2)  // the last record's delimiter
        record.append(contentsOf: repeatElement(0, count: padding))
        guard record.count + 16 <= Int(recordSize) else {
            throw Failure("the message is \(plaintext.count) bytes; one record holds at most \(Int(recordSize) - 17)")
        }
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(record, using: key, nonce: try AES.GCM.Nonce(data: nonce))
        } catch {
            throw Failure("encryption failed: \(error)")
        }
        var body = salt
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublic.count))
        body.append(senderPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// Decrypts an `aes128gcm` body with the subscriber's keys.
    ///
    /// - Throws: ``Failure`` naming what is wrong: a short header, a key id that is not a P-256 point, a record that
    ///   does not authenticate (other keys, or altered), a missing delimiter.
    public static func decrypt(_ body: Data, with keys: WebPushKeys) throws(Failure) -> Data {
        let header = try Header(body)
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: header.keyID) else {
            throw Failure("the header's key id is not the sender's P-256 public key (65 bytes)")
        }
        guard let shared = try? keys.privateKey.sharedSecretFromKeyAgreement(with: senderKey) else {
            throw Failure("no key agreement with the sender's key")
        }
        let subscriberPublic = keys.privateKey.publicKey.x963Representation
        let (key, baseNonce) = contentKeys(
            shared: shared, auth: keys.auth, subscriberPublic: subscriberPublic, senderPublic: header.keyID, salt: header.salt)
        var plaintext = Data()
        var offset = body.startIndex + header.length
        var sequence: UInt64 = 0
        while offset < body.endIndex {
            let end = min(offset + Int(header.recordSize), body.endIndex)
            let record = body[offset..<end]
            guard record.count > 16 else { throw Failure("a record is shorter than its authentication tag") }
            let opened: Data
            do {
                let box = try AES.GCM.SealedBox(
                    nonce: try AES.GCM.Nonce(data: nonce(baseNonce, sequence)), ciphertext: record.dropLast(16), tag: record.suffix(16))
                opened = try AES.GCM.open(box, using: key)
            } catch {
                throw Failure("the message does not decrypt with this subscriber's keys (other keys, or altered on the way)")
            }
            let isLast = end == body.endIndex
            guard let delimiterIndex = opened.lastIndex(where: { $0 != 0 }) else {
                throw Failure("a record has no delimiter")
            }
            guard opened[delimiterIndex] == (isLast ? 2 : 1) else {
                throw Failure(isLast ? "the last record does not end with delimiter 2" : "a record before the last does not end with delimiter 1")
            }
            plaintext.append(opened[opened.startIndex..<delimiterIndex])
            offset = end
            sequence += 1
        }
        guard sequence > 0 else { throw Failure("the body holds a header and no record") }
        return plaintext
    }

    /// The `aes128gcm` header at the start of a body (RFC 8188 §2.1).
    public struct Header: Sendable, Hashable {
        public var salt: Data
        public var recordSize: UInt32
        /// For Web Push, the sender's public key.
        public var keyID: Data
        /// Bytes the header takes.
        public var length: Int { 21 + keyID.count }

        /// - Throws: ``Failure`` when `body` is too short for its header or announces an impossible record size.
        public init(_ body: Data) throws(Failure) {
            let bytes = [UInt8](body.prefix(21))
            guard bytes.count == 21 else { throw Failure("the body is shorter than an aes128gcm header (\(body.count) bytes)") }
            salt = Data(bytes[0..<16])
            recordSize = bytes[16..<20].reduce(0) { $0 << 8 | UInt32($1) }
            let keyIDLength = Int(bytes[20])
            guard body.count >= 21 + keyIDLength else { throw Failure("the body ends inside the header's key id") }
            keyID = Data(body.dropFirst(21).prefix(keyIDLength))
            guard recordSize >= 18 else { throw Failure("the header's record size \(recordSize) is below the smallest, 18") }
        }
    }

    /// RFC 8291 §3.4 then RFC 8188 §2.2: the content encryption key and the base nonce.
    private static func contentKeys(
        shared: SharedSecret, auth: Data, subscriberPublic: Data, senderPublic: Data, salt: Data
    ) -> (SymmetricKey, Data) {
        var keyInfo = Data("WebPush: info".utf8)
        keyInfo.append(0)
        keyInfo.append(subscriberPublic)
        keyInfo.append(senderPublic)
        let inputKey = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        return (contentKey, nonce.withUnsafeBytes { Data($0) })
    }

    /// The nonce of record `sequence`: the base nonce with the sequence number XORed into its last 6 bytes.
    private static func nonce(_ base: Data, _ sequence: UInt64) -> Data {
        var nonce = [UInt8](base)
        for index in 0..<6 { nonce[11 - index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(index))) }
        return Data(nonce)
    }
}
