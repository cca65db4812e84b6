import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird
import NIOCore

/// The console's validators, as Apple's console has them: a provider JWT checked exactly as the provider API
/// would check it on a fresh connection, and a device token looked up.
struct ConsoleValidators: Sendable {
    let store: any Store
    let inspector: ProviderTokenInspector
    let hub: DeviceHub
    /// The provider API's clock, so that a token's age is judged as the provider API judges it.
    let clock: any WallClock

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("validate/jwt") { request, _ in
            let body = try await request.body.collect(upTo: 16 * 1024)
            guard let value = try? JSONValue.parse(Data(body.readableBytesView)), let jwt = value["jwt"]?.stringValue else {
                return AdminAPI.error(.badRequest, "BadRequest", #"send {"jwt":"…"}, optionally with "topic" and "pushType""#)
            }
            let pushType = value["pushType"]?.stringValue.flatMap(PushType.init(rawValue:)) ?? .alert
            return AdminAPI.json(.ok, await inspector.inspect(jwt: jwt, topic: value["topic"]?.stringValue, pushType: pushType, now: clock.now()))
        }
        group.get("validate/token/:token") { _, context in
            try await lookUp(context.parameters.get("token") ?? "")
        }
    }

    /// Which app and environment a device token belongs to, whether its device is online, and since when it no
    /// longer takes notifications.
    private func lookUp(_ hex: String) async throws -> Response {
        guard let token = DeviceToken(hex: hex) else {
            return AdminAPI.error(.badRequest, "BadDeviceToken", "a device token is 64 hexadecimal digits (or more, up to 200)")
        }
        guard let record = try await store.device(token) else {
            return AdminAPI.error(.notFound, "BadDeviceToken", "no device token \(hex) on this gateway (the provider API answers 400 BadDeviceToken)")
        }
        var fields: [String: JSONValue] = [
            "deviceToken": .string(record.token.hex), "topic": .string(record.topic), "environment": .string("\(record.environment)"),
            "createdAt": .string(DeliveryTimeline.timestamp(record.createdAt)),
        ]
        if let owner = record.owner {
            fields["deviceID"] = .string(owner)
            fields["online"] = .bool(try await hub.onlineDeviceIDs(everywhereIn: store).contains(owner))
        } else {
            fields["virtual"] = .bool(true)
        }
        if let retiredAt = record.retiredAt, let retirement = record.retirement {
            fields["retired"] = .object(["at": .string(DeliveryTimeline.timestamp(retiredAt)), "as": .string(retirement.rawValue)])
        }
        return AdminAPI.json(.ok, .object(fields))
    }
}
