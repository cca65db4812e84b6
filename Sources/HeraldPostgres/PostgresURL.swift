import Foundation
public import HeraldStore

/// Where a PostgreSQL store is and how to reach it, read from a URL as `herald serve --store` takes it:
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE` (or `postgresql://`).
///
/// - The user name, password and database name are percent-decoded (`p%40ss` is `p@ss`).
/// - The port is 5432 unless given; an IPv6 address goes in brackets (`postgres://herald@[::1]/herald`).
/// - `sslmode` is `disable`, `prefer`, `require`, `verify-ca` or `verify-full`, as libpq reads it, except for the
///   default: without `sslmode` the connection is plain TCP (libpq would try TLS first). `prefer` and `require` encrypt
///   without checking the server's certificate; `verify-ca` checks it against the trusted CAs, `verify-full` the host
///   name too. `sslrootcert=PATH` names a PEM file of CAs to trust instead of the system's.
///
/// ```swift
/// let url = try PostgresURL("postgres://herald:s%3Acret@db.example.com/herald?sslmode=verify-full")
/// url.endpoint  // "db.example.com:5432"
/// ```
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// How the connection is encrypted (`sslmode`).
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tlsMode: TLSMode
    /// A PEM file of the CAs to trust (`sslrootcert`); nil: the system's.
    public var rootCertificatePath: String?

    /// `HOST:PORT`, as messages name the server (`[ADDRESS]:PORT` for an IPv6 address).
    public var endpoint: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The URL with its password hidden, for messages and logs.
    public var description: String {
        let credentials = password == nil ? user : "\(user):***"
        var query: [String] = []
        if tlsMode != .disable { query.append("sslmode=\(tlsMode.rawValue)") }
        if let rootCertificatePath { query.append("sslrootcert=\(rootCertificatePath)") }
        return "postgres://\(credentials)@\(endpoint)/\(database)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// Reads `text`.
    ///
    /// - Throws: ``StoreError`` `.unavailable` naming what is wrong with the URL (never its password).
    public init(_ text: String) throws(StoreError) {
        let reader = URLReader(text: text)
        let rest = try reader.droppingScheme()
        let (beforeQuery, query) = rest.splitOnce("?")
        // The last @ ends the credentials, so that a password may hold an @ or / that was not percent-encoded; the
        // host ends at the first / after it.
        guard let at = beforeQuery.lastIndex(of: "@") else {
            throw reader.failure("has no user name: write it before the host, as in postgres://USER@HOST/DATABASE")
        }
        let (encodedUser, encodedPassword) = String(beforeQuery[..<at]).splitOnce(":")
        let (authority, path) = String(beforeQuery[beforeQuery.index(after: at)...]).splitOnce("/")
        user = try reader.decoded(encodedUser, "user name")
        password = try encodedPassword.map { password throws(StoreError) in try reader.decoded(password, "password") }
        guard !user.isEmpty else {
            throw reader.failure("has no user name: write it before the host, as in postgres://USER@HOST/DATABASE")
        }
        (host, port) = try reader.hostAndPort(authority)
        database = try reader.decoded(path ?? "", "database name")
        guard !database.isEmpty else {
            throw reader.failure("has no database name: add one after the host, as in postgres://USER@\(host)/DATABASE")
        }
        tlsMode = .disable
        rootCertificatePath = nil
        try readParameters(query ?? "", reader)
    }

    private mutating func readParameters(_ query: String, _ reader: URLReader) throws(StoreError) {
        var explicitMode: TLSMode?
        for parameter in query.split(separator: "&") {
            let (name, value) = String(parameter).splitOnce("=")
            switch name {
            case "sslmode":
                guard let value, let mode = TLSMode(rawValue: value) else {
                    let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw reader.failure("has sslmode=\(value ?? ""): it takes one of \(modes)")
                }
                explicitMode = mode
            case "sslrootcert":
                guard let value, let path = value.removingPercentEncoding, !path.isEmpty else {
                    throw reader.failure("has an empty sslrootcert: give the path of a PEM file of CA certificates")
                }
                rootCertificatePath = path
            default:
                throw reader.failure("has a parameter Herald does not know, \(name): it understands sslmode and sslrootcert")
            }
        }
        if rootCertificatePath != nil {
            // As libpq: a CA file given with require means the certificate is checked.
            switch explicitMode {
            case .require: explicitMode = .verifyCA
            case .verifyCA, .verifyFull: break
            case .disable, .prefer, nil:
                throw reader.failure("has sslrootcert without sslmode=verify-full (or verify-ca): the CAs would not be used")
            }
        }
        tlsMode = explicitMode ?? .disable
    }
}

/// The parsing steps of ``PostgresURL``, and the URL as its messages show it.
private struct URLReader {
    private let text: String
    /// The URL with `***` for its password.
    private let shown: String

    init(text: String) {
        var shown = text
        if let scheme = text.range(of: "://") {
            let beforeQuery = text[scheme.upperBound...].prefix { $0 != "?" }
            if let at = beforeQuery.lastIndex(of: "@"), let colon = beforeQuery[..<at].firstIndex(of: ":") {
                shown = String(text[...colon]) + "***" + String(text[at...])
            }
        }
        self.text = text
        self.shown = shown
    }

    func failure(_ problem: String) -> StoreError {
        StoreError(.unavailable, "the store URL \(shown) \(problem)")
    }

    func droppingScheme() throws(StoreError) -> String {
        for scheme in ["postgres://", "postgresql://"] where text.lowercased().hasPrefix(scheme) {
            return String(text.dropFirst(scheme.count))
        }
        throw failure("is not a PostgreSQL URL: write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE")
    }

    func decoded(_ part: String, _ what: String) throws(StoreError) -> String {
        guard let decoded = part.removingPercentEncoding else {
            throw failure("has a \(what) with a broken percent-encoding (a % must be followed by two hex digits)")
        }
        return decoded
    }

    func hostAndPort(_ authority: String) throws(StoreError) -> (String, Int) {
        guard !authority.contains(",") else {
            throw failure("names several hosts: Herald connects to one (put a proxy or a virtual address in front)")
        }
        var host = authority
        var portText: String?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw failure("has an IPv6 address without its closing ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw failure("has something other than :PORT after its IPv6 address") }
                portText = String(after.dropFirst())
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = String(authority[authority.index(after: colon)...])
        }
        guard !host.isEmpty else { throw failure("has no host: write it after the @, as in postgres://USER@HOST/DATABASE") }
        guard let portText else { return (host, 5432) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw failure("has the port \(portText): a port is a number from 1 to 65535")
        }
        return (host, port)
    }
}

extension String {
    /// The text before the first `separator` and the text after it (nil when there is none).
    fileprivate func splitOnce(_ separator: Character) -> (String, String?) {
        guard let found = firstIndex(of: separator) else { return (self, nil) }
        return (String(self[..<found]), String(self[index(after: found)...]))
    }
}
