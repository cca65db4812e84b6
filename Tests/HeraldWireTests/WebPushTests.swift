import Crypto
import Foundation
import HeraldWire
import Testing

@Suite("Web Push: RFC 8291 encryption, RFC 8030 headers, VAPID under Apple's rules")
struct WebPushTests {
    // RFC 8291 Appendix A: every input of the example, and the body it gives.
    static let plaintext = Data("When I grow up, I want to be a watermelon".utf8)
    static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let subscriberPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static var subscriber: WebPushKeys {
        WebPushKeys(rawPrivateKey: Base64URL.decode(subscriberPrivate)!, auth: Base64URL.decode(auth)!)!
    }

    @Test func encryptsAsRFC8291sExample() throws {
        let body = try WebPushEncryption.encrypt(
            Self.plaintext, for: Self.subscriber.subscription,
            senderKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: Base64URL.decode(Self.senderPrivate)!),
            salt: Base64URL.decode(Self.salt)!)
        #expect(Base64URL.encode(body) == Self.body)
    }

    @Test func decryptsRFC8291sExample() throws {
        #expect(try WebPushEncryption.decrypt(Base64URL.decode(Self.body)!, with: Self.subscriber) == Self.plaintext)
    }

    @Test func paddingIsRemovedAndOtherKeysCannotRead() throws {
        let keys = WebPushKeys()
        let body = try WebPushEncryption.encrypt(Data("hello".utf8), for: keys.subscription, padding: 100)
        #expect(try WebPushEncryption.decrypt(body, with: keys) == Data("hello".utf8))
        #expect(throws: WebPushEncryption.Failure.self) { try WebPushEncryption.decrypt(body, with: WebPushKeys()) }
        var altered = body
        altered[altered.count - 1] ^= 1
        #expect(throws: WebPushEncryption.Failure.self) { try WebPushEncryption.decrypt(altered, with: keys) }
    }

    @Test func aMessageTooLongForOneRecordIsRefused() {
        #expect(throws: WebPushEncryption.Failure.self) {
            try WebPushEncryption.encrypt(Data(count: 4080), for: WebPushKeys().subscription)
        }
    }

    // MARK: The request's head

    static func head(_ fields: [String: String], body: Data = Data()) throws(Rejection) -> WebPushHead {
        try WebPushHead.parse(header: { fields[$0] }, body: body)
    }

    static let validBody: Data = {
        try! WebPushEncryption.encrypt(Data("x".utf8), for: WebPushKeys().subscription)
    }()

    @Test func aHeadIsRead() throws {
        let head = try Self.head(["ttl": "60", "urgency": "HIGH", "topic": "order42x", "content-encoding": "aes128gcm"], body: Self.validBody)
        #expect(head == WebPushHead(ttl: 60, urgency: .high, topic: "order42x"))
        #expect(try Self.head(["ttl": "99999999999"]).ttl == WebPushHead.maximumTTL)
    }

    @Test(arguments: [
        (["urgency": "normal"], APNsReason.badTTL),
        (["ttl": "-1"], .badTTL),
        (["ttl": "soon"], .badTTL),
        (["ttl": "60", "urgency": "urgent"], .badUrgency),
        (["ttl": "60", "topic": "order:42"], .badWebPushTopic),
        (["ttl": "60", "topic": String(repeating: "a", count: 33)], .badWebPushTopic),
        (["ttl": "60", "topic": "new_event"], .badWebPushTopic),  // 9 characters: refused by Apple
    ])
    func aBadHeaderIsRefusedWithApplesReason(fields: [String: String], reason: APNsReason) {
        #expect { try Self.head(fields) } throws: { ($0 as? Rejection)?.reason == reason }
    }

    @Test func theBodyMustBeAes128gcmAndAtMost4096Bytes() {
        #expect { try Self.head(["ttl": "0"], body: Self.validBody) } throws: { ($0 as? Rejection)?.reason == .badWebPushRequest }
        #expect { try Self.head(["ttl": "0", "content-encoding": "aesgcm"], body: Self.validBody) } throws: {
            ($0 as? Rejection)?.reason == .badWebPushRequest
        }
        #expect { try Self.head(["ttl": "0", "content-encoding": "aes128gcm"], body: Data(#"{"plain":"json"}"#.utf8)) } throws: {
            ($0 as? Rejection)?.reason == .badWebPushRequest
        }
        #expect { try Self.head(["ttl": "0", "content-encoding": "aes128gcm"], body: Data(count: 4097)) } throws: {
            ($0 as? Rejection)?.reason == .payloadTooLarge
        }
    }

    // MARK: VAPID

    static let origin = "https://localhost:8443"
    static let key = P256.Signing.PrivateKey()

    static func token(
        subject: String = "mailto:ops@example.com", audience: String = origin, expiresIn: TimeInterval = 3600, key: P256.Signing.PrivateKey = key
    ) throws -> VAPIDToken {
        try VAPIDToken.parse(
            authorization: VAPIDToken.authorization(audience: audience, subject: subject, expiresAt: Date() + expiresIn, key: key))
    }

    @Test func aGoodTokenPasses() throws {
        let token = try Self.token()
        try token.verify()
        try token.checkClaims(origin: Self.origin, applicationServerKey: Self.key.publicKey.x963Representation, now: Date())
        #expect(token.subject == "mailto:ops@example.com")
    }

    @Test(arguments: [
        "mailto:ops@example.com", "https://example.com", "https://push.example.org/contact", "mailto:a.b+c@mail.example.co.uk",
    ])
    func subjectsAppleTakes(subject: String) {
        #expect(VAPIDToken.subjectProblem(subject) == nil)
    }

    @Test(arguments: [
        "ops@example.com", "mailto: ops@example.com", "mailto:<ops@example.com>", "mailto:ops@localhost", "https://localhost",
        "https://localhost:8080", "mailto:ops@relay.local", "mailto:security@x.invalid", "https://push.test", "http://example.com",
        "mailto:", "https://127.0.0.1", "tel:+15551234",
    ])
    func subjectsAppleRefuses(subject: String) {
        #expect(VAPIDToken.subjectProblem(subject) != nil)
    }

    @Test func claimsAreCheckedAsAppleDoes() throws {
        let check = { (token: VAPIDToken, key: Data?) throws(Rejection) in
            try token.checkClaims(origin: Self.origin, applicationServerKey: key, now: Date())
        }
        let reason = { (body: () throws -> Void) -> APNsReason? in
            do {
                try body()
                return nil
            } catch {
                return (error as? Rejection)?.reason
            }
        }
        #expect(reason { try check(try Self.token(audience: "https://web.push.apple.com"), nil) } == .badJWTToken)
        #expect(reason { try check(try Self.token(audience: Self.origin + "/"), nil) } == .badJWTToken)
        #expect(reason { try check(try Self.token(expiresIn: -10), nil) } == .badJWTToken)
        #expect(reason { try check(try Self.token(expiresIn: 25 * 3600), nil) } == .badJWTToken)
        #expect(reason { try check(try Self.token(expiresIn: 24 * 3600), nil) } == nil)
        #expect(reason { try check(try Self.token(subject: "mailto:me@localhost"), nil) } == .badJWTToken)
        let other = P256.Signing.PrivateKey().publicKey.x963Representation
        #expect(reason { try check(try Self.token(), other) } == .vapidPKHashMismatch)
    }

    @Test func aSignatureByAnotherKeyDoesNotVerify() throws {
        let header = try VAPIDToken.authorization(
            audience: Self.origin, subject: "mailto:ops@example.com", expiresAt: Date() + 60, key: P256.Signing.PrivateKey())
        // The JWT of one key presented with another key's k=.
        let forged = header.replacingOccurrences(
            of: String(header.split(separator: "k=")[1]), with: Base64URL.encode(Self.key.publicKey.x963Representation))
        #expect { try VAPIDToken.parse(authorization: forged).verify() } throws: { ($0 as? Rejection)?.reason == .badJWTToken }
    }

    @Test(arguments: [
        ("", APNsReason.badAuthorizationHeader),
        ("Bearer abc", .badAuthorizationHeader),
        ("WebPush eyJ.eyJ.sig", .badAuthorizationHeader),
        ("vapid k=BAAA", .badJWTToken),
        ("vapid t=a.b.c, k=not-a-key", .badVAPIDPublicKey),
    ])
    func malformedAuthorizationIsRefused(header: String, reason: APNsReason) {
        #expect { try VAPIDToken.parse(authorization: header) } throws: { ($0 as? Rejection)?.reason == reason }
    }

    @Test func reasonsHaveApplesStatuses() {
        #expect(APNsReason.badJWTToken.status == 403)
        #expect(APNsReason.badAuthorizationHeader.status == 403)
        #expect(APNsReason.vapidPKHashMismatch.status == 400)
        #expect(APNsReason.badWebPushTopic.status == 400)
        #expect(APNsReason.badTTL.status == 400)
    }

    @Test func aSubscriptionsJSONIsRead() throws {
        let keys = WebPushKeys()
        let json = PushSubscriptionJSON(endpoint: "https://localhost:8443/push/ab", keys: keys.subscription).json.encoded()
        #expect(try PushSubscriptionJSON.parse(json).keys == keys.subscription)
        #expect(throws: PushSubscriptionJSON.Failure.self) { try PushSubscriptionJSON.parse(Data(#"{"endpoint":"x"}"#.utf8)) }
    }
}
