import HeraldDBus
import HeraldDevice
import Testing

/// Connectors' calls to the distributor as UnifiedPush's D-Bus specification has them (v2 and v1), and what is answered.
@Suite struct UnifiedPushRequestTests {
    static let vapid = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"

    static func call(_ interface: String, _ member: String, _ body: [DBusValue]) -> DBusMethodCall {
        DBusMethodCall(path: UnifiedPushDistributor.path, interface: interface, member: member, sender: ":1.7", body: body)
    }

    static func register2(_ fields: [String: DBusValue]) -> DBusMethodCall {
        call(UnifiedPushRequest.distributorInterface2, "Register", [.hints(fields)])
    }

    @Test func aV2RegisterWithItsVAPIDKey() throws {
        let call = Self.register2([
            "service": .string("org.example.App"), "token": .string("2c6e1a4e-5a43-4a8e-b0b4-1d9a3bb1b0a1"),
            "description": .string("chat"), "vapid": .string(Self.vapid),
        ])
        let request = try UnifiedPushRequest.read(call).get()
        #expect(
            request
                == .register(.init(service: "org.example.App", token: "2c6e1a4e-5a43-4a8e-b0b4-1d9a3bb1b0a1", vapid: Self.vapid, version: 2)))
        // An empty key is no key.
        let keyless = Self.register2(["service": .string("org.example.App"), "token": .string("t"), "vapid": .string("")])
        #expect(try UnifiedPushRequest.read(keyless).get() == .register(.init(service: "org.example.App", token: "t", vapid: nil, version: 2)))
    }

    @Test func aV1RegisterAndUnregister() throws {
        let register = Self.call(
            UnifiedPushRequest.distributorInterface1, "Register", [.string("org.example.App"), .string("t-1"), .string("chat")])
        #expect(try UnifiedPushRequest.read(register).get() == .register(.init(service: "org.example.App", token: "t-1", vapid: nil, version: 1)))
        let unregister = Self.call(UnifiedPushRequest.distributorInterface1, "Unregister", [.string("t-1")])
        #expect(try UnifiedPushRequest.read(unregister).get() == .unregister(token: "t-1", version: 1))
        let unregister2 = Self.call(UnifiedPushRequest.distributorInterface2, "Unregister", [.hints(["token": .string("t-1")])])
        #expect(try UnifiedPushRequest.read(unregister2).get() == .unregister(token: "t-1", version: 2))
    }

    @Test(arguments: [
        ["token": DBusValue.string("t")],  // no service
        ["service": .string("org.example.App")],  // no token
        ["service": .string("app"), "token": .string("t")],  // not a D-Bus name
        ["service": .string("org.example.App"), "token": .string(String(repeating: "t", count: 101))],
        ["service": .string("org.example.App"), "token": .string("t"), "vapid": .string("AAAA")],
    ])
    func argumentsTheSpecDoesNotAllowAreRefusedAndChangeNothing(fields: [String: DBusValue]) {
        guard case .failure(let answer) = UnifiedPushRequest.read(Self.register2(fields)),
            case .error(let name, _) = answer.reply
        else {
            Issue.record("taken: \(fields)")
            return
        }
        #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func introspectionListsBothVersions() throws {
        guard case .failure(let answer) = UnifiedPushRequest.read(Self.call("org.freedesktop.DBus.Introspectable", "Introspect", [])),
            case .values(let values) = answer.reply, let xml = values.first?.string
        else {
            Issue.record("no introspection")
            return
        }
        #expect(xml.contains(#"<interface name="org.unifiedpush.Distributor2">"#))
        #expect(xml.contains(#"<interface name="org.unifiedpush.Distributor1">"#))
        guard case .failure(let unknown) = UnifiedPushRequest.read(Self.call(UnifiedPushRequest.distributorInterface2, "Nope", [])),
            case .error(let name, _) = unknown.reply
        else {
            Issue.record("an unknown method was taken")
            return
        }
        #expect(name == "org.freedesktop.DBus.Error.UnknownMethod")
    }

    @Test func answers() {
        #expect(UnifiedPushRequest.answer(.succeeded, version: 2) == .values([.hints(["success": .string("REGISTRATION_SUCCEEDED")])]))
        #expect(
            UnifiedPushRequest.answer(.failed(.network), version: 2)
                == .values([.hints(["success": .string("REGISTRATION_FAILED"), "reason": .string("NETWORK")])]))
        #expect(UnifiedPushRequest.answer(.succeeded, version: 1) == .values([.string("REGISTRATION_SUCCEEDED"), .string("")]))
        #expect(UnifiedPushRequest.unregisterAnswer(version: 2) == .values([.hints([:])]))
        #expect(UnifiedPushRequest.unregisterAnswer(version: 1) == .values([]))
    }

    @Test func aTokenTheGatewayCannotNameIsNamedByItsHash() {
        #expect(UnifiedPushRegistration.subscriptionName(for: "2c6e1a4e-5a43-4a8e-b0b4-1d9a3bb1b0a1") == "2c6e1a4e-5a43-4a8e-b0b4-1d9a3bb1b0a1")
        let hashed = UnifiedPushRegistration.subscriptionName(for: "a token/with spaces")
        #expect(hashed.count == 64 && hashed == UnifiedPushRegistration.subscriptionName(for: "a token/with spaces"))
        #expect(hashed != UnifiedPushRegistration.subscriptionName(for: "a token/with spaces!"))
    }
}
