import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird
import NIOCore
import ServiceLifecycle

/// The admin JSON API on the console port, behind `Authorization: Bearer <DATA_DIR/admin-token>` or a console
/// session (``ConsoleAuth``): the delivery log of a notification, the devices, the apps and their storage policies,
/// keys and tokens (``ConsoleKeys``).
struct AdminAPI: Sendable {
    let store: any Store
    let hub: DeviceHub
    let auth: ConsoleAuth
    let events: DeliveryEvents
    let validators: ConsoleValidators
    let sender: ConsoleSender
    /// Devices that linked through the console's relay: browsers.
    let browsers: BrowserDevices
    let keys: ConsoleKeys
    /// The provider API's cache of keys, devices and policies, told of changes made here.
    let directory: Directory
    let faults: ConsoleFaults
    let webPush: ConsoleWebPush

    func register(on router: Router<BasicRequestContext>) {
        let group = router.group("v1").add(middleware: ConsoleAPIGate(auth: auth))
        group.get("session") { request, _ in session(of: request) }
        group.get("events") { _, _ in eventStream() }
        validators.register(on: group)
        sender.register(on: group)
        keys.register(on: group)
        faults.register(on: group)
        webPush.register(on: group)
        DeliveryLog(store: store).register(on: group)
        ConsoleLiveActivities(store: store, hub: hub, environment: sender.environment).register(on: group)
        group.get("notifications/:id") { _, context in try await notification(context.parameters.get("id") ?? "") }
        group.get("devices") { _, _ in try await devices() }
        group.get("apps") { _, _ in try await apps() }
        group.put("apps/:bundleID") { request, context in
            try await setPolicy(bundleID: context.parameters.get("bundleID") ?? "", body: try await request.body.collect(upTo: 4096))
        }
    }

    /// Who is calling; for a signed-in person, the CSRF token the pages send with changes.
    private func session(of request: Request) -> Response {
        switch auth.caller(of: request) {
        case .person(_, let session)?:
            Self.json(
                .ok,
                .object([
                    "caller": .string("session"), "csrf": .string(session.csrf), "expires": .string(DeliveryTimeline.timestamp(session.expires)),
                ]))
        default:
            Self.json(.ok, .object(["caller": .string("token")]))
        }
    }

    /// `GET /v1/events`: Server-Sent Events, one per delivery state change (`event: accepted`, `stored`, `delivered`,
    /// `discarded`, `unregistered`; `data:` one JSON object), and a comment every 15 s so proxies keep the stream open.
    private func eventStream() -> Response {
        let stream = events.follow()
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": following delivery events\n\n"))
            // Ends when the gateway shuts down, which would otherwise wait for the follower to leave.
            for try await item in stream.cancelOnGracefulShutdown() {
                switch item {
                case .event(let event):
                    let name = event["event"]?.stringValue ?? "event"
                    try await writer.write(ByteBuffer(string: "event: \(name)\ndata: \(String(decoding: event.encoded(), as: UTF8.self))\n\n"))
                case .keepAlive:
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    private func notification(_ id: String) async throws -> Response {
        guard let uuid = APNsID.parse(id) else {
            return Self.error(.badRequest, "NotAnID", "give an apns-id or apns-unique-id (a UUID)")
        }
        guard let notification = try await store.notification(id: uuid) else {
            return Self.error(.notFound, "NotFound", "no notification with this apns-id or apns-unique-id")
        }
        // One notification's answer carries its payload too (as JSON; as text when it is not JSON), for scripts such as
        // `herald expect --payload-has`; the log's pages do not.
        guard case .object(var fields) = try await DeliveryLog.timeline(of: notification, store: store) else {
            return Self.json(.ok, try await DeliveryLog.timeline(of: notification, store: store))
        }
        if notification.pushType == .webPush {
            fields["payload"] = ConsoleWebPush.payload(of: notification, dataDirectory: webPush.dataDirectory)
        } else {
            fields["payload"] = (try? JSONValue.parse(notification.payload)) ?? .string(String(decoding: notification.payload, as: UTF8.self))
        }
        return Self.json(.ok, .object(fields))
    }

    private func devices() async throws -> Response {
        let online = try await hub.onlineDeviceIDs(everywhereIn: store)
        var list: [JSONValue] = []
        for device in try await store.linkedDevices() {
            let apps = try await store.devices(owner: device.id).map { record -> JSONValue in
                var fields: [String: JSONValue] = [
                    "topic": .string(record.topic), "deviceToken": .string(record.token.hex), "kind": .string(record.kind.rawValue),
                    "environment": .string(record.environment.rawValue), "registered": .string(DeliveryTimeline.timestamp(record.createdAt)),
                ]
                if let activityID = record.activityID { fields["activityID"] = .string(activityID) }
                return .object(fields)
            }
            list.append(
                .object([
                    "deviceID": .string(device.id),
                    "online": .bool(online.contains(device.id)),
                    "browser": .bool(browsers.contains(device.id)),
                    "firstSeen": .string(DeliveryTimeline.timestamp(device.firstSeenAt)),
                    "lastSeen": .string(DeliveryTimeline.timestamp(device.lastSeenAt)),
                    "pending": .integer(Int64(try await store.pendingNotificationCount(deviceID: device.id))),
                    "apps": .array(apps),
                ]))
        }
        return Self.json(.ok, .object(["devices": .array(list)]))
    }

    private func apps() async throws -> Response {
        let list = try await store.apps().map { app -> JSONValue in
            .object([
                "bundleID": .string(app.bundleID),
                "storagePolicy": DeliveryTimeline.policyJSON(app.storagePolicy),
                "devices": .integer(Int64(app.deviceCount)),
            ])
        }
        return Self.json(.ok, .object(["apps": .array(list)]))
    }

    private func setPolicy(bundleID: String, body: ByteBuffer) async throws -> Response {
        guard TopicSyntax.isValid(bundleID), !bundleID.isEmpty else {
            return Self.error(.badRequest, "BadTopic", "\(bundleID) is not a bundle id")
        }
        guard let value = try? JSONValue.parse(Data(body.readableBytesView)),
            let kind = value["kind"]?.stringValue.flatMap(StoragePolicy.Kind.init(rawValue:))
        else {
            return Self.error(.badRequest, "BadPolicy", #"send {"kind":"latest"} or {"kind":"all","cap":N}"#)
        }
        let cap = value["cap"]?.integerValue.map(Int.init) ?? StoragePolicy.defaultCap
        guard cap >= 1 else { return Self.error(.badRequest, "BadPolicy", "cap must be at least 1") }
        let policy = StoragePolicy(kind: kind, cap: cap)
        try await store.setStoragePolicy(policy, bundleID: bundleID)
        directory.remember(policy, bundleID: bundleID)
        return Self.json(.ok, .object(["bundleID": .string(bundleID), "storagePolicy": DeliveryTimeline.policyJSON(policy)]))
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        var body = value.encoded()
        body.append(UInt8(ascii: "\n"))
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }

    static func error(_ status: HTTPResponse.Status, _ reason: String, _ message: String) -> Response {
        json(status, .object(["reason": .string(reason), "message": .string(message)]))
    }
}
