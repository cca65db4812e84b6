import Crypto
import Foundation
import Synchronization

/// Signed-in console sessions, in memory: a random session id (the cookie) and a CSRF token per session, each
/// valid for ``lifetime``. A restart signs everyone out.
final class ConsoleSessions: Sendable {
    struct Session: Sendable, Hashable {
        /// Sent back in `X-Herald-CSRF` by the pages with every request that changes something.
        var csrf: String
        var expires: Date
    }

    static let cookieName = "herald_session"
    static let lifetime: TimeInterval = 12 * 3600
    /// At most this many sessions; signing in beyond it drops the one that expires first.
    static let limit = 1000

    private let sessions = Mutex<[String: Session]>([:])

    /// A new session: its id (for the cookie) and the session.
    func create(now: Date = Date()) -> (id: String, session: Session) {
        let id = Self.randomToken()
        let session = Session(csrf: Self.randomToken(), expires: now.addingTimeInterval(Self.lifetime))
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > now }
            if sessions.count >= Self.limit, let first = sessions.min(by: { $0.value.expires < $1.value.expires })?.key {
                sessions[first] = nil
            }
            sessions[id] = session
        }
        return (id, session)
    }

    /// The session `id` names, if it exists and has not expired.
    func session(_ id: String, now: Date = Date()) -> Session? {
        sessions.withLock { sessions in
            guard let session = sessions[id] else { return nil }
            guard session.expires > now else {
                sessions[id] = nil
                return nil
            }
            return session
        }
    }

    func end(_ id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// 32 random bytes, base64url without padding.
    static func randomToken() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Compares secrets in time that does not depend on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
