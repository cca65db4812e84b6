public import struct Foundation.Data
public import struct Foundation.Date

/// Apple's rules for a VAPID JWT on `web.push.apple.com` (docs/web-push.md has each one with its source): `aud` the
/// push service's origin, `exp` in the future and at most a day ahead, `sub` a `mailto:` or `https:` URL of a real
/// domain, and the key the one the subscription was made with.
extension VAPIDToken {
    /// The furthest ahead `exp` may be: one day (Apple).
    public static let longestLifetime: Double = 24 * 3600

    /// How far a sender's clock may run ahead of the push service's when it sets `exp` a day ahead.
    public static let clockSkew: Double = 60

    /// Checks the claims and the key; the signature is ``verify()``'s (a cache of verified tokens skips it).
    ///
    /// - Parameters:
    ///   - origin: The push service's origin as the request addressed it (`https://` and its `:authority`).
    ///   - applicationServerKey: The key the subscription was made with; nil when it was made without one.
    /// - Throws: ``Rejection`` `BadJwtToken` naming the claim, or `VapidPkHashMismatch`.
    public func checkClaims(origin: String, applicationServerKey: Data?, now: Date) throws(Rejection) {
        guard let audience else { throw Rejection(.badJWTToken, "the JWT has no \"aud\"; set it to \(origin)") }
        guard audience == origin else {
            throw Rejection(.badJWTToken, "\"aud\" must be the push service's origin \(origin), not \(audience)")
        }
        guard let expiresAt else { throw Rejection(.badJWTToken, "the JWT has no numeric \"exp\"") }
        let seconds = now.timeIntervalSince1970
        guard expiresAt > seconds else { throw Rejection(.badJWTToken, "the JWT expired (\"exp\" is in the past)") }
        guard expiresAt <= seconds + Self.longestLifetime + Self.clockSkew else {
            throw Rejection(.badJWTToken, "\"exp\" is more than 24 hours ahead; Apple refuses that")
        }
        if let subjectRefusal { throw Rejection(.badJWTToken, subjectRefusal) }
        if let applicationServerKey, applicationServerKey != publicKey {
            throw Rejection(.vapidPKHashMismatch, "k= is not the applicationServerKey the subscription was made with")
        }
    }

    /// Why Apple would refuse `subject` as a `sub` claim, or nil when it would take it.
    ///
    /// Apple takes `mailto:` and `https:` URLs and has been seen to refuse a space or angle brackets, `localhost`, the
    /// reserved names `.local`, `.invalid`, `.test`, `.example`, and a bare address without `mailto:`.
    public static func subjectProblem(_ subject: String) -> String? {
        if subject.contains(where: { $0 == " " || $0 == "<" || $0 == ">" || $0 == "\t" }) {
            return "must be a URL with no spaces or angle brackets (mailto:ops@example.com), not \"\(subject)\""
        }
        let host: Substring
        if subject.hasPrefix("mailto:") {
            let address = subject.dropFirst("mailto:".count)
            guard let at = address.lastIndex(of: "@"), at != address.startIndex else {
                return "must be mailto: and an address (mailto:ops@example.com)"
            }
            host = address[address.index(after: at)...]
        } else if subject.hasPrefix("https://") {
            let rest = subject.dropFirst("https://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            host = authority.split(separator: "@").last.map { $0.prefix { $0 != ":" } } ?? ""
        } else if subject.contains("@"), !subject.contains(":") {
            return "is an address without mailto: (write mailto:\(subject))"
        } else {
            return "must be a mailto: or https: URL"
        }
        let labels = host.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let last = labels.last else {
            return "must name a public domain (\(host.isEmpty ? "no host" : String(host)) is not one)"
        }
        if last.allSatisfy(\.isNumber) { return "names an IP address; Apple expects a domain of yours" }
        if Self.reservedNames.contains(String(last)) {
            return "names \(host), under a name reserved for local or example use (.\(last)); Apple refuses it"
        }
        return nil
    }

    /// Top-level names that never resolve publicly (RFC 2606, RFC 6761, RFC 6762).
    static let reservedNames: Set<String> = ["localhost", "local", "invalid", "test", "example"]
}
