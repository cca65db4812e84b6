import Foundation
import HTTPTypes
import HeraldStore
import Hummingbird

/// Who may use the console: a script with `Authorization: Bearer <admin token>`, or a person signed in through
/// the sign-in page (the `herald_session` cookie, HttpOnly and SameSite=Strict). A signed-in request that changes
/// something must also carry the session's CSRF token in `X-Herald-CSRF`, which only the console's own pages can
/// read (`GET /v1/session`).
struct ConsoleAuth: Sendable {
    static let csrfHeader = HTTPField.Name("X-Herald-CSRF")!

    let token: String
    let sessions: ConsoleSessions
    /// Where `herald console password` keeps the password's hash, when one is set.
    let dataDirectory: DataDirectory?

    enum Caller: Sendable {
        case script
        case person(id: String, ConsoleSessions.Session)
    }

    /// Whether `secret`, typed on the sign-in page, is the admin token or the console password.
    func admits(_ secret: String) -> Bool {
        if ConsoleSessions.constantTimeEqual(secret, token) { return true }
        return dataDirectory.map { ConsolePassword.matches(secret, in: $0) } ?? false
    }

    /// The caller of `request`, or nil when it presents neither the admin token nor a live session.
    func caller(of request: Request) -> Caller? {
        caller(headers: request.headers)
    }

    func caller(headers: HTTPFields) -> Caller? {
        if let presented = Self.bearer(headers), ConsoleSessions.constantTimeEqual(presented, token) { return .script }
        if let id = Self.cookie(ConsoleSessions.cookieName, in: headers), let session = sessions.session(id) {
            return .person(id: id, session)
        }
        return nil
    }

    /// Whether a signed-in person's request that changes something carries the session's CSRF token.
    static func carriesCSRF(_ request: Request, for session: ConsoleSessions.Session) -> Bool {
        guard let presented = request.headers[csrfHeader] else { return false }
        return ConsoleSessions.constantTimeEqual(presented, session.csrf)
    }

    static func changesSomething(_ request: Request) -> Bool {
        ![.get, .head, .options].contains(request.method)
    }

    private static func bearer(_ headers: HTTPFields) -> String? {
        headers[.authorization].flatMap { value -> String? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return String(parts[1]).trimmingCharacters(in: .whitespaces)
        }
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func cookie(_ name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }
}

/// The console API's gate: 401 without the admin token or a session, 403 for a signed-in change without the
/// CSRF token.
struct ConsoleAPIGate: RouterMiddleware {
    typealias Context = BasicRequestContext
    let auth: ConsoleAuth

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch auth.caller(of: request) {
        case nil:
            var response = AdminAPI.error(
                .unauthorized, "Unauthorized", "send Authorization: Bearer <the token in DATA_DIR/admin-token>, or sign in at /sign-in")
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        case .person(_, let session) where ConsoleAuth.changesSomething(request) && !ConsoleAuth.carriesCSRF(request, for: session):
            return AdminAPI.error(.forbidden, "MissingCSRFToken", "a signed-in change needs X-Herald-CSRF (from GET /v1/session)")
        default:
            return try await next(request, context)
        }
    }
}
