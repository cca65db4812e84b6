import HeraldStore
import NIOSSL
import Testing

@testable import HeraldPostgres

/// How a store URL is read, and what a person is told when it cannot be.
@Suite struct PostgresURLTests {
    @Test func aFullURLIsReadWithItsPartsDecoded() throws {
        let url = try PostgresURL("postgres://her%40ld:p%40ss%2Fw:rd@db.example.com:6543/herald%2Dprod?sslmode=verify-full")
        #expect(url.user == "her@ld" && url.password == "p@ss/w:rd")
        #expect(url.host == "db.example.com" && url.port == 6543 && url.database == "herald-prod")
        #expect(url.tlsMode == .verifyFull && url.rootCertificatePath == nil)
        #expect(url.endpoint == "db.example.com:6543")
        #expect(url.description == "postgres://her@ld:***@db.example.com:6543/herald-prod?sslmode=verify-full")
    }

    @Test func defaultsArePort5432AndNoTLS() throws {
        let url = try PostgresURL("postgresql://herald@localhost/herald")
        #expect(url.port == 5432 && url.password == nil && url.tlsMode == .disable)
        #expect(url.tlsConfiguration == nil)
    }

    @Test func anIPv6AddressGoesInBrackets() throws {
        let url = try PostgresURL("postgres://herald@[::1]:5433/herald")
        #expect(url.host == "::1" && url.port == 5433 && url.endpoint == "[::1]:5433")
        #expect(try PostgresURL("postgres://herald@[fe80::1]/herald").port == 5432)
    }

    /// A password may hold an @ or a / that was not percent-encoded: the last @ ends the credentials.
    @Test func aPasswordWithAnUnencodedAtSign() throws {
        let url = try PostgresURL("postgres://herald:p@ss/w@db:5432/herald")
        #expect(url.password == "p@ss/w" && url.host == "db" && url.database == "herald")
    }

    @Test(arguments: [
        ("prefer", PostgresURL.TLSMode.prefer, CertificateVerification.none),
        ("require", .require, .none),
        ("verify-ca", .verifyCA, .noHostnameVerification),
        ("verify-full", .verifyFull, .fullVerification),
    ])
    func sslModesChooseHowTheCertificateIsChecked(mode: String, expected: PostgresURL.TLSMode, verification: CertificateVerification) throws {
        let url = try PostgresURL("postgres://herald@db/herald?sslmode=\(mode)")
        #expect(url.tlsMode == expected)
        #expect(url.tlsConfiguration?.certificateVerification == verification)
    }

    @Test func aCAFileMakesRequireCheckTheCertificate() throws {
        let url = try PostgresURL("postgres://herald@db/herald?sslmode=require&sslrootcert=/etc/herald/ca.pem")
        #expect(url.tlsMode == .verifyCA && url.rootCertificatePath == "/etc/herald/ca.pem")
        #expect(url.tlsConfiguration?.trustRoots == .file("/etc/herald/ca.pem"))
    }

    @Test(arguments: [
        ("mysql://herald@db/herald", "is not a PostgreSQL URL: write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
        ("postgres://db/herald", "has no user name"),
        ("postgres://:secret@db/herald", "has no user name"),
        ("postgres://herald@db", "has no database name: add one after the host, as in postgres://USER@db/DATABASE"),
        ("postgres://herald@db/", "has no database name"),
        ("postgres://herald@/herald", "has no host"),
        ("postgres://herald@db:99999/herald", "has the port 99999: a port is a number from 1 to 65535"),
        ("postgres://herald@db:port/herald", "has the port port"),
        ("postgres://herald@one,two/herald", "names several hosts"),
        ("postgres://herald@[::1/herald", "has an IPv6 address without its closing ]"),
        ("postgres://herald@db/herald?sslmode=always", "has sslmode=always: it takes one of disable, prefer, require, verify-ca, verify-full"),
        ("postgres://herald@db/herald?connect_timeout=5", "has a parameter Herald does not know, connect_timeout"),
        ("postgres://herald@db/herald?sslrootcert=/ca.pem", "has sslrootcert without sslmode=verify-full"),
        ("postgres://herald@db/herald?sslmode=verify-full&sslrootcert=", "has an empty sslrootcert"),
        ("postgres://her%zzald@db/herald", "has a user name with a broken percent-encoding"),
    ])
    func aBadURLIsExplained(url: String, problem: String) {
        let error = #expect(throws: StoreError.self) { try PostgresURL(url) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.hasPrefix("the store URL ") == true)
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
    }

    /// Messages show the URL with its password hidden, however broken the rest is.
    @Test func aBadURLsMessageHidesThePassword() {
        for url in ["postgres://herald:s3cret@db", "postgres://herald:s3cr%zzet@db/herald", "postgres://herald:s3cret@db/herald?sslmode=no"] {
            let error = #expect(throws: StoreError.self) { try PostgresURL(url) }
            #expect(error?.message.contains("s3cr") == false, "\(error?.message ?? "")")
            #expect(error?.message.contains("herald:***@db") == true, "\(error?.message ?? "")")
        }
    }

    @Test func aStoreWithABadURLFailsBeforeConnecting() async {
        let error = await #expect(throws: StoreError.self) {
            try await PostgresStore(url: "postgres://herald@db.invalid", nodeID: "node", logger: PostgresTesting.logger)
        }
        #expect(error?.code == .unavailable && error?.message.contains("has no database name") == true)
    }

    @Test func aCAFileThatCannotBeReadIsSaidBeforeConnecting() async {
        let url = "postgres://herald@127.0.0.1:1/herald?sslmode=verify-full&sslrootcert=/no/such/ca.pem"
        let error = await #expect(throws: StoreError.self) {
            try await PostgresStore(url: url, nodeID: "node", logger: PostgresTesting.logger)
        }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message.contains("cannot set up TLS for PostgreSQL at 127.0.0.1:1 (sslrootcert /no/such/ca.pem)") == true,
            "\(error?.message ?? "")")
    }
}
