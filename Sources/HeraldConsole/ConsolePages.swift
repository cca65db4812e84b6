import Foundation
import HTTPTypes
import HeraldPages
import Hummingbird
import NIOCore

/// The console's pages and the sign-in around them. Pages are static HTML, JavaScript modules and CSS from the
/// binary's resources (`Assets`), working over the console's JSON API; every response carries a
/// Content-Security-Policy that allows only the console's own scripts and styles.
struct ConsolePages: Sendable {
    let auth: ConsoleAuth
    /// The console is served over HTTPS: its cookie is `Secure`.
    let secure: Bool
    let assets: [String: WebAsset]

    init(auth: ConsoleAuth, secure: Bool, assets: [String: WebAsset] = Self.bundledAssets) {
        self.auth = auth
        self.secure = secure
        self.assets = assets
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("sign-in") { request, _ in
            auth.caller(of: request) == nil ? page("sign-in.html") : Self.redirect(to: "/")
        }
        router.post("sign-in") { request, _ in try await signIn(request) }
        router.post("sign-out") { request, _ in signOut(request) }
        for (path, file) in Self.pages {
            router.get(RouterPath(path)) { request, _ in
                auth.caller(of: request) == nil ? Self.redirect(to: "/sign-in?next=\(path)") : page(file)
            }
        }
        router.get("assets/:name") { _, context in
            guard let name = context.parameters.get("name"), let asset = assets[name], !name.hasSuffix(".html") else {
                return AdminAPI.error(.notFound, "NotFound", "no such asset")
            }
            return Response(
                status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
        }
    }

    /// The console's pages by path; each needs a session, and sends a visitor without one to the sign-in page.
    static let pages = [
        "/": "send.html",
        "/log": "log.html",
        "/devices": "devices.html",
        "/device": "device.html",
        "/validators": "validators.html",
        "/dashboard": "metrics.html",
        "/keys": "keys.html",
        "/live-activities": "live-activities.html",
        "/faults": "faults.html",
        "/webpush": "webpush.html",
    ]

    /// `POST /sign-in` with the form fields `token` and `next`: the admin token gives a session cookie and a redirect
    /// to the page asked for (`next`, one of ``pages``); a wrong one goes back to the form, which says so. The token
    /// is never put in a URL.
    private func signIn(_ request: Request) async throws -> Response {
        guard Self.comesFromHere(request) else {
            return AdminAPI.error(.forbidden, "CrossOrigin", "sign in from the console's own page")
        }
        let form = try await request.body.collect(upTo: 4096)
        let fields = String(buffer: form)
        let token = Self.formField("token", in: fields) ?? ""
        let next = Self.formField("next", in: fields).flatMap { Self.pages[$0] == nil ? nil : $0 } ?? "/"
        guard auth.admits(token) else { return Self.redirect(to: "/sign-in?failed&next=\(next)") }
        let (id, _) = auth.sessions.create()
        var response = Self.redirect(to: next)
        response.headers[.setCookie] = cookie(id, maxAge: Int(ConsoleSessions.lifetime))
        return response
    }

    /// `POST /sign-out`, from a page (the CSRF token in `X-Herald-CSRF`): ends the session, clears the cookie.
    private func signOut(_ request: Request) -> Response {
        guard case .person(let id, let session) = auth.caller(of: request), ConsoleAuth.carriesCSRF(request, for: session) else {
            return AdminAPI.error(.forbidden, "MissingCSRFToken", "sign out from the console's page")
        }
        auth.sessions.end(id)
        var response = Response(status: .noContent)
        response.headers[.setCookie] = cookie("", maxAge: 0)
        return response
    }

    private func cookie(_ value: String, maxAge: Int) -> String {
        "\(ConsoleSessions.cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)" + (secure ? "; Secure" : "")
    }

    private func page(_ name: String) -> Response {
        guard let asset = assets[name] else { return AdminAPI.error(.serviceUnavailable, "ConsolePagesMissing", Self.missingAssets) }
        return Response(
            status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A request whose `Origin` (when the browser sends one) is the console itself.
    static func comesFromHere(_ request: Request) -> Bool {
        comesFromHere(origin: request.headers[.origin], authority: request.head.authority)
    }

    static func comesFromHere(origin: String?, authority: String?) -> Bool {
        guard let origin else { return true }
        guard let authority else { return false }
        return origin == "http://\(authority)" || origin == "https://\(authority)"
    }

    /// A field of an `application/x-www-form-urlencoded` body.
    static func formField(_ name: String, in body: String) -> String? {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ") }
            if parts.first?.removingPercentEncoding == name { return parts.count == 2 ? parts[1].removingPercentEncoding : "" }
        }
        return nil
    }

    /// The pages, scripts and styles in the binary's resources (`Assets` and the shared ones).
    static let bundledAssets = WebAsset.bundled(target: "HeraldConsole")

    static let missingAssets = WebAsset.missing(target: "HeraldConsole", pages: "the console's pages are")
}

/// Headers on every console response: only the console's own scripts, styles and connections; no framing, no
/// referrer beyond the console, no MIME sniffing. (`same-origin`, not `no-referrer`: with `no-referrer` browsers
/// send `Origin: null` on the sign-in form's POST, which the origin check must refuse.)
enum ConsoleSecurityHeaders {
    static let middleware = PageSecurityHeaders(
        contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        referrerPolicy: "same-origin")
}
