import Crypto
import Foundation
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldWire
import Testing

/// Web push subscriptions a linked device asks for over its link (its UnifiedPush apps): the endpoint in the answer,
/// the same subscription while the key stays, a new one when it changes, and the limits and refusals.
@Suite struct WebPushLinkSubscriptionTests {
    static let app = "org.example.HeraldTestApp"

    static func key() -> String {
        Base64URL.encode(P256.Signing.PrivateKey().publicKey.x963Representation)
    }

    /// What the gateway answers a subscription's register: its token and endpoint, or a refusal.
    enum Answer {
        case registered(token: String, endpoint: String?)
        case refused(DeviceLinkMessage.Refusal)

        func get() throws -> (token: String, endpoint: String?) {
            guard case .registered(let token, let endpoint) = self else { throw Unexpected(description: "refused: \(self)") }
            return (token, endpoint)
        }

        var refusal: DeviceLinkMessage.Refusal? {
            if case .refused(let refusal) = self { refusal } else { nil }
        }
    }

    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    static func register(_ device: TestDevice, name: String, key: String?, app: String = app) async throws -> Answer {
        device.send(.register(topic: app, kind: .webPush, activityID: name, applicationServerKey: key))
        switch try await device.next() {
        case .registered(app, let token, .webPush, name, let endpoint)?: return .registered(token: token, endpoint: endpoint)
        case .error(let refusal)?: return .refused(refusal)
        case let other: throw Unexpected(description: "no answer to a web push register: \(other.map { $0.encoded() } ?? "nothing")")
        }
    }

    static func record(_ gateway: TestGateway, _ token: String) async throws -> DeviceRecord {
        let token = try #require(DeviceToken(hex: token))
        return try #require(try await gateway.store.device(token))
    }

    @Test func theAnswerCarriesTheEndpointAndAKeyChangeMakesANewSubscription() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let key = Self.key()
        let first = try await Self.register(device, name: "sub-1", key: key).get()
        let port = gateway.gateway.webPushPort
        #expect(first.endpoint == "https://localhost:\(port)/push/\(first.token)")
        let record = try await Self.record(gateway, first.token)
        #expect(record.kind == .webPush && record.topic == Self.app && record.activityID == "sub-1")
        #expect(record.applicationServerKey == Base64URL.decode(key))

        // The same key again: the same subscription (a daemon's registrations on each link).
        #expect(try await Self.register(device, name: "sub-1", key: key).get().token == first.token)
        // Another key: a new subscription, and the old endpoint answers 410 from now on.
        let second = try await Self.register(device, name: "sub-1", key: Self.key()).get()
        #expect(second.token != first.token)
        let old = try await Self.record(gateway, first.token)
        #expect(old.retiredAt != nil && old.retirement == .unregistered)

        device.send(.unregister(topic: Self.app, kind: .webPush, activityID: "sub-1"))
        guard case .unregistered(Self.app, second.token, .webPush, "sub-1")? = try await device.next() else {
            Issue.record("no unregistered for the subscription")
            return
        }
        let gone = try await Self.record(gateway, second.token)
        #expect(gone.retiredAt != nil && gone.retirement == .unregistered)
        await device.leave()
        try await gateway.stop()
    }

    @Test func refusals() async throws {
        let gateway = try await TestGateway.start { $0.deviceAppLimit = 2 }
        let device = try await TestDevice.connect(to: gateway)
        #expect(try await Self.register(device, name: "sub-1", key: "not-a-key").refusal?.reason == "BadApplicationServerKey")
        #expect(try await Self.register(device, name: "not a name", key: nil).refusal?.reason == "BadActivityId")
        #expect(try await Self.register(device, name: "sub-1", key: nil, app: "no spaces here").refusal?.reason == "BadTopic")
        _ = try await Self.register(device, name: "sub-1", key: nil).get()
        _ = try await Self.register(device, name: "sub-2", key: nil).get()
        let refusal = try #require(try await Self.register(device, name: "sub-3", key: nil).refusal)
        #expect(refusal.reason == "TooManySubscriptions" && refusal.kind == .webPush && refusal.activityID == "sub-3")
        // One that exists is still answered.
        _ = try await Self.register(device, name: "sub-2", key: nil).get()
        await device.leave()
        try await gateway.stop()
    }
}
