import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// Push-to-start and Live Activity tokens over a real device link: what the gateway hands out, which pushes each
/// takes, and how they answer once retired.
@Suite struct LiveActivityTokenTests {
    static let liveActivityTopic = TestGateway.topic + ".push-type.liveactivity"
    static let update = #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"eta":5}}}"#

    static func send(_ gateway: TestGateway, to token: String, liveActivity: Bool = true) async throws -> APNsResponse {
        var push = Push(token: token, jwt: gateway.defaultJWT)
        if liveActivity {
            push.topic = liveActivityTopic
            push.pushType = .liveActivity
            push.body = Data(update.utf8)
        }
        let connection = try await gateway.connect()
        defer { Task { await connection.close() } }
        return try await connection.send(push)
    }

    @Test func aDeviceHoldsOneTokenOfEachKindAndOnePerActivity() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let app = try await device.register(TestGateway.topic)
        let pushToStart = try await device.register(TestGateway.topic, kind: .pushToStart)
        let activity = try await device.register(TestGateway.topic, kind: .activity, activityID: "7A9C0B1E-0000-4000-8000-000000000001")
        let other = try await device.register(TestGateway.topic, kind: .activity, activityID: "7A9C0B1E-0000-4000-8000-000000000002")
        #expect(Set([app, pushToStart, activity, other]).count == 4)
        #expect(try await device.register(TestGateway.topic, kind: .pushToStart) == pushToStart)  // asked again: the same one
        #expect(try await gateway.store.device(try #require(DeviceToken(hex: activity)))?.activityID == "7A9C0B1E-0000-4000-8000-000000000001")

        // A liveactivity push reaches the device with the activity's token; other push types are not the token's topic.
        #expect(try await Self.send(gateway, to: activity).status == 200)
        let delivered = try await device.notification()
        #expect(delivered.deviceToken == activity && delivered.pushType == .liveActivity && delivered.topic == Self.liveActivityTopic)
        device.acknowledge(delivered)
        #expect(try await Self.send(gateway, to: pushToStart).status == 200)
        #expect(try await device.notification().deviceToken == pushToStart)
        let alert = try await Self.send(gateway, to: activity, liveActivity: false)
        #expect(alert.status == 400 && alert.reason == .deviceTokenNotForTopic)
        #expect(try await Self.send(gateway, to: pushToStart, liveActivity: false).reason == .deviceTokenNotForTopic)
        // A liveactivity push to the app's own token is accepted, as APNs accepts it (the device drops it).
        #expect(try await Self.send(gateway, to: app).status == 200)
        await device.leave()
        try await gateway.stop()
    }

    @Test func aDismissedActivitysTokenAnswersExpiredToken() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        _ = try await device.register(TestGateway.topic)
        let activityID = "7A9C0B1E-0000-4000-8000-000000000003"
        let activity = try await device.register(TestGateway.topic, kind: .activity, activityID: activityID)
        gateway.clock.advance(by: 60)
        device.send(.unregister(topic: TestGateway.topic, kind: .activity, activityID: activityID))
        guard case .unregistered(_, activity, .activity, activityID)? = try await device.next() else {
            Issue.record("no unregistered for the activity's token")
            return
        }
        let gone = try await Self.send(gateway, to: activity)
        #expect(gone.status == 410 && gone.reason == .expiredToken)
        #expect(gone.timestamp == Int64(gateway.clock.now().timeIntervalSince1970 * 1000))
        // The app's own token is untouched; a new token for the same activity id is a new token.
        #expect(try await device.register(TestGateway.topic, kind: .activity, activityID: activityID) != activity)
        #expect(try await Self.send(gateway, to: try await device.register(TestGateway.topic), liveActivity: false).status == 200)
        await device.leave()
        try await gateway.stop()
    }

    @Test func unregisteringTheAppRetiresItsLiveActivityTokensToo() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        _ = try await device.register(TestGateway.topic)
        let pushToStart = try await device.register(TestGateway.topic, kind: .pushToStart)
        device.send(.unregister(topic: TestGateway.topic))
        // The answer, and the word of the app's other tokens as the gateway retires them (in either order).
        var told: [TokenKind: String] = [:]
        for _ in 0..<2 {
            guard case .unregistered(_, let token, let kind, nil)? = try await device.next() else { break }
            told[kind] = token
        }
        #expect(told.keys.sorted { $0.rawValue < $1.rawValue } == [.app, .pushToStart] && told[.pushToStart] == pushToStart)
        let gone = try await Self.send(gateway, to: pushToStart)
        #expect(gone.status == 410 && gone.reason == .unregistered)
        await device.leave()
        try await gateway.stop()
    }

    @Test func refusalsNameTheRequestTheyAnswer() async throws {
        let gateway = try await TestGateway.start { $0.deviceActivityTokenLimit = 2 }
        let device = try await TestDevice.connect(to: gateway)
        func refusal(_ request: DeviceLinkMessage) async throws -> DeviceLinkMessage.Refusal? {
            device.send(request)
            guard case .error(let refusal)? = try await device.next() else { return nil }
            return refusal
        }
        // Live Activity tokens belong to a registered app.
        let early = try #require(try await refusal(.register(topic: TestGateway.topic, kind: .pushToStart)))
        #expect(early.reason == "NotRegistered" && early.kind == .pushToStart && early.topic == TestGateway.topic)
        _ = try await device.register(TestGateway.topic)
        let badID = try #require(try await refusal(.register(topic: TestGateway.topic, kind: .activity, activityID: "not an id!")))
        #expect(badID.reason == "BadActivityId" && badID.activityID == "not an id!")
        _ = try await device.register(TestGateway.topic, kind: .activity, activityID: "a1")
        _ = try await device.register(TestGateway.topic, kind: .activity, activityID: "a2")
        let third = try #require(try await refusal(.register(topic: TestGateway.topic, kind: .activity, activityID: "a3")))
        #expect(third.reason == "TooManyActivities" && third.activityID == "a3" && third.kind == .activity)
        let unknown = try #require(try await refusal(.unregister(topic: TestGateway.topic, kind: .activity, activityID: "a9")))
        #expect(unknown.reason == "NotRegistered" && unknown.activityID == "a9")
        await device.leave()
        try await gateway.stop()
    }
}
