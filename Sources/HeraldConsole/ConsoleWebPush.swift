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
    ///
    /// `authorization` may be the header's value, the header line, a whole pasted request or curl command holding it,
    /// or a bare JWT (its claims are then checked without its signature, which needs `k=`).
    func check(_ value: JSONValue) -> JSONValue {
        let text = value["authorization"]?.stringValue ?? ""
        let audience = value["origin"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? origin
        var header = Self.vapidHeader(in: text)
        if header == nil, let jwt = value["jwt"]?.stringValue, let key = value["key"]?.stringValue { header = "vapid t=\(jwt), k=\(key)" }
        var unsigned = false
        if header == nil, let jwt = Self.bareJWT(in: text) {
            // Without k= the signature cannot be checked: the claims are, with the JWT's own key slot left empty.
            header = "vapid t=\(jwt), k=\(Base64URL.encode([4] + [UInt8](repeating: 0, count: 64)))"
            unsigned = true
        }
        do throws(Rejection) {
            let token = try VAPIDToken.parse(authorization: header ?? text)
            if !unsigned { try token.verify() }
            try token.checkClaims(origin: audience, applicationServerKey: nil, now: Date())
            var fields: [String: JSONValue] = ["ok": .bool(true), "subject": .string(token.subject ?? ""), "origin": .string(audience)]
            if unsigned { fields["note"] = .string("a bare JWT: its claims pass; its signature needs k= to be checked") }
            return .object(fields)
        } catch {
            return .object([
                "ok": .bool(false), "reason": .string(error.reason.rawValue), "status": .integer(Int64(error.reason.status)),
                "detail": .string(error.detail), "origin": .string(audience),
            ])
        }
    }

    /// `vapid t=…, k=…` wherever it stands in `text`: up to the end of its line or a closing quote.
    static func vapidHeader(in text: String) -> String? {
        guard let start = text.range(of: "vapid ", options: .caseInsensitive) else { return nil }
        let rest = text[start.lowerBound...]
        return String(rest.prefix { $0 != "\n" && $0 != "\r" && $0 != "'" && $0 != "\"" }).trimmingCharacters(in: .whitespaces)
    }

    /// A compact JWT (three base64url parts, the first a JSON header) standing alone in `text`.
    static func bareJWT(in text: String) -> String? {
        let candidate = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard candidate.hasPrefix("eyJ"), candidate.split(separator: ".", omittingEmptySubsequences: false).count == 3,
            !candidate.contains(where: { $0 == " " || $0 == "\n" })
        else { return nil }
        return candidate
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
