import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird

/// The console's Web Push API (docs/web-push.md): `GET /v1/webpush/refusals`, the requests the Web Push port refused
/// lately with the check that failed; `POST /v1/webpush/check` `{"authorization":"vapid t=…, k=…"}` (or `"jwt"` with
/// `"key"`), Apple's checks of a sender's JWT as the port would make them; and what the log shows of a message.
struct ConsoleWebPush: Sendable {
    let refusals: WebPushRefusals
    let dataDirectory: DataDirectory
    /// The Web Push port's origin: the `aud` a JWT for it must have.
    let origin: String

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("webpush/refusals") { _, _ in
            AdminAPI.json(.ok, .object(["origin": .string(origin), "refusals": .array(refusals.latest.map(\.json))]))
        }
        group.post("webpush/check") { request, _ in
            let body = try await request.body.collect(upTo: 16_384)
            guard let value = try? JSONValue.parse(Data(body.readableBytesView)) else {
                return AdminAPI.error(.badRequest, "BadRequest", #"send {"authorization":"vapid t=…, k=…"} or {"jwt":"…","key":"…"}"#)
            }
            return AdminAPI.json(.ok, check(value))
        }
    }

    /// The checks' outcome: `{"ok":true,"subject":…}` or `{"ok":false,"reason":…,"status":…,"detail":…}`.
    func check(_ value: JSONValue) -> JSONValue {
        var header = value["authorization"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines)
        if header?.lowercased().hasPrefix("authorization:") == true { header = String(header!.dropFirst("authorization:".count)) }
        if header == nil, let jwt = value["jwt"]?.stringValue, let key = value["key"]?.stringValue {
            header = "vapid t=\(jwt), k=\(key)"
        }
        let audience = value["origin"]?.stringValue ?? origin
        do throws(Rejection) {
            let token = try VAPIDToken.parse(authorization: header ?? "")
            try token.verify()
            try token.checkClaims(origin: audience, applicationServerKey: nil, now: Date())
            return .object(["ok": .bool(true), "subject": .string(token.subject ?? ""), "origin": .string(audience)])
        } catch {
            return .object([
                "ok": .bool(false), "reason": .string(error.reason.rawValue), "status": .integer(Int64(error.reason.status)),
                "detail": .string(error.detail), "origin": .string(audience),
            ])
        }
    }

    /// A message's body for the log's details: its size and base64url, and its text when this data directory holds the
    /// subscriber's keys (a virtual subscriber).
    static func payload(of notification: StoredNotification, dataDirectory: DataDirectory) -> JSONValue {
        var fields: [String: JSONValue] = [
            "encrypted": .string(Base64URL.encode(notification.payload)), "size": .integer(Int64(notification.payload.count)),
        ]
        if let keys = dataDirectory.webPushKeys(for: notification.deviceToken)?.keys {
            do {
                fields["text"] = .string(String(decoding: try WebPushEncryption.decrypt(notification.payload, with: keys), as: UTF8.self))
            } catch {
                fields["decryptError"] = .string("\(error)")
            }
        }
        return .object(fields)
    }
}
