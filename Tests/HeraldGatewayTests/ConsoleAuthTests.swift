import Foundation
import HeraldConsole
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import Testing

/// Signing in to the console: the admin token gives an HttpOnly, SameSite=Strict session cookie; without it every
/// page and console API refuses; a signed-in change needs the CSRF token; every answer carries the CSP.
@Suite struct ConsoleAuthTests {
    /// Every page of the console.
    static let pages = ["/", "/log", "/devices", "/device", "/validators", "/dashboard", "/keys"]

    private func console(_ gateway: TestGateway) async throws -> ConsoleHTTP {
        ConsoleHTTP(port: try await gateway.gateway.consolePort())
    }

    /// Signs in and returns the session cookie's value.
    private func signIn(_ http: ConsoleHTTP, token: String) async throws -> String {
        let reply = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=\(token)")
        #expect(reply.status == 303 && reply.header("location") == "/")
        let cookie = try #require(reply.header("set-cookie"))
        return try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
    }

    @Test(arguments: [
        ("GET", "/v1/devices"), ("GET", "/v1/apps"), ("GET", "/v1/session"), ("PUT", "/v1/apps/com.example.app"),
        ("GET", "/v1/notifications/01a2025f-661a-7c6b-90ce-a0d495582c4d"), ("GET", "/v1/notifications"),
        ("GET", "/v1/notifications?q=ab&limit=5"), ("POST", "/v1/send"), ("POST", "/v1/send/commands"),
        ("POST", "/v1/check"), ("GET", "/v1/send/options"), ("GET", "/v1/keys"), ("POST", "/v1/keys"),
        ("POST", "/v1/keys/import"), ("POST", "/v1/keys/TEAM123456/KEY1234567/revoke"), ("POST", "/v1/tokens"),
        ("POST", "/v1/tokens/\(String(repeating: "ab", count: 32))/unregister"),
    ])
    func everyConsoleAPIRefusesAnonymousCallers(method: String, path: String) async throws {
        let gateway = try await TestGateway.start()
        let http = try await console(gateway)
        let reply = try await http.send(method, path, body: method == "PUT" ? #"{"policy":"all"}"# : "")
        #expect(reply.status == 401)
        #expect(reply.body.contains(#""reason":"Unauthorized""#))
        let forged = try await http.send(method, path, headers: ["Cookie": "herald_session=made-up"])
        #expect(forged.status == 401)
        try await gateway.stop()
    }

    @Test func pagesSendAnonymousPeopleToSignIn() async throws {
        let gateway = try await TestGateway.start()
        let http = try await console(gateway)
        for path in Self.pages {
            let page = try await http.send("GET", path)
            #expect(page.status == 303 && page.header("location") == "/sign-in?next=\(path)", "\(path)")
        }
        let form = try await http.send("GET", "/sign-in")
        #expect(form.status == 200 && form.body.contains(#"<form method="post" action="/sign-in">"#))
        #expect(form.header("content-security-policy")?.hasPrefix("default-src 'none'; script-src 'self'") == true)
        #expect(form.header("x-frame-options") == "DENY" && form.header("x-content-type-options") == "nosniff")
        #expect(try await http.send("GET", "/assets/console.css").status == 200)
        #expect(try await http.send("GET", "/assets/devices.html").status == 404)
        try await gateway.stop()
    }

    @Test func theAdminTokenSignsInAndAWrongOneDoesNot() async throws {
        let gateway = try await TestGateway.start()
        let http = try await console(gateway)
        let wrong = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=not-it")
        #expect(wrong.status == 303 && wrong.header("location") == "/sign-in?failed&next=/" && wrong.header("set-cookie") == nil)

        let right = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=\(gateway.gateway.adminToken)")
        let cookie = try #require(right.header("set-cookie"))
        #expect(cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Strict") && cookie.contains("; Path=/"))
        #expect(!cookie.contains("Secure"), "loopback console over plain HTTP: a Secure cookie would never come back")
        #expect(!(right.header("location") ?? "").contains(gateway.gateway.adminToken))

        let session = try await signIn(http, token: gateway.gateway.adminToken)
        let signedIn = ["Cookie": "herald_session=\(session)"]
        for path in Self.pages {
            #expect(try await http.send("GET", path, headers: signedIn).body.contains(" · Herald console</title>"), "\(path)")
        }
        #expect(try await http.send("GET", "/v1/devices", headers: signedIn).status == 200)
        #expect(try await http.send("GET", "/sign-in", headers: signedIn).header("location") == "/")
        try await gateway.stop()
    }

    /// `herald console password` sets a password that signs in as the token does; a wrong one does not, and
    /// removing it takes effect at the next sign-in.
    @Test func theConsolePasswordSignsInUntilRemoved() async throws {
        let gateway = try await TestGateway.start()
        let http = try await console(gateway)
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        #expect(try await http.send("POST", "/sign-in", headers: form, body: "token=correct+horse+battery").header("set-cookie") == nil)
        try ConsolePassword.set("correct horse battery", in: gateway.directory)
        let mode = try FileManager.default.attributesOfItem(atPath: ConsolePassword.path(in: gateway.directory))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try String(contentsOfFile: ConsolePassword.path(in: gateway.directory), encoding: .utf8).hasPrefix("scrypt$"))

        let signedIn = try await http.send("POST", "/sign-in", headers: form, body: "token=correct+horse+battery")
        #expect(signedIn.status == 303 && signedIn.header("location") == "/" && signedIn.header("set-cookie") != nil)
        let wrong = try await http.send("POST", "/sign-in", headers: form, body: "token=correct+horse+staple")
        #expect(wrong.header("location") == "/sign-in?failed&next=/" && wrong.header("set-cookie") == nil)
        // The admin token still signs in.
        #expect(try await http.send("POST", "/sign-in", headers: form, body: "token=\(gateway.gateway.adminToken)").header("set-cookie") != nil)

        #expect(ConsolePassword.remove(in: gateway.directory))
        #expect(try await http.send("POST", "/sign-in", headers: form, body: "token=correct+horse+battery").header("set-cookie") == nil)
        try await gateway.stop()
    }

    @Test func aSignedInChangeNeedsTheCSRFToken() async throws {
        let gateway = try await TestGateway.start()
        let http = try await console(gateway)
        let session = try await signIn(http, token: gateway.gateway.adminToken)
        let cookie = ["Cookie": "herald_session=\(session)"]
        let about = try await http.send("GET", "/v1/session", headers: cookie)
        let csrf = try #require(about.body.split(separator: "\"").drop { $0 != "csrf" }.dropFirst(2).first.map(String.init))

        let policy = #"{"kind":"all"}"#
        let without = try await http.send("PUT", "/v1/apps/com.example.app", headers: cookie, body: policy)
        #expect(without.status == 403 && without.body.contains("MissingCSRFToken"))
        let wrong = try await http.send(
            "PUT", "/v1/apps/com.example.app", headers: cookie.merging(["X-Herald-CSRF": "nope"]) { a, _ in a }, body: policy)
        #expect(wrong.status == 403)
        let with = try await http.send(
            "PUT", "/v1/apps/com.example.app", headers: cookie.merging(["X-Herald-CSRF": csrf]) { a, _ in a }, body: policy)
        #expect(with.status == 200, "\(with.body)")

        // Scripts with the admin token need no CSRF token: no browser sends it on their behalf.
        let script = try await http.send(
            "PUT", "/v1/apps/com.example.app", headers: ["Authorization": "Bearer \(gateway.gateway.adminToken)"], body: policy)
        #expect(script.status == 200)

        // Signing out needs the CSRF token too, and ends the session.
        #expect(try await http.send("POST", "/sign-out", headers: cookie).status == 403)
        let out = try await http.send("POST", "/sign-out", headers: cookie.merging(["X-Herald-CSRF": csrf]) { a, _ in a })
        #expect(out.status == 204 && out.header("set-cookie")?.contains("Max-Age=0") == true)
        #expect(try await http.send("GET", "/v1/devices", headers: cookie).status == 401)
        try await gateway.stop()
    }

    @Test func aSignInFromAnotherOriginIsRefused() async throws {
        let gateway = try await TestGateway.start()
        let http = try await console(gateway)
        let reply = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"],
            body: "token=\(gateway.gateway.adminToken)")
        #expect(reply.status == 403 && reply.header("set-cookie") == nil)
        // What browsers send from the console's own form: its origin (the Referrer-Policy lets them; no-referrer
        // made Chromium send "null", and nobody could sign in).
        let own = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded", "Origin": "http://127.0.0.1:\(http.port)"],
            body: "token=\(gateway.gateway.adminToken)")
        #expect(own.status == 303 && own.header("set-cookie") != nil)
        // The page asked for before signing in, if it is one of the console's; anything else goes to the start.
        let back = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "token=\(gateway.gateway.adminToken)&next=%2Fdevices")
        #expect(back.header("location") == "/devices")
        let away = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "token=\(gateway.gateway.adminToken)&next=https%3A%2F%2Fevil.example%2F")
        #expect(away.header("location") == "/")
        #expect(own.header("referrer-policy") == "same-origin")
        try await gateway.stop()
    }

    /// Beyond loopback the console is HTTPS with the gateway's certificate, and its cookie is Secure.
    @Test func aConsoleBeyondLoopbackIsHTTPSWithSecureCookies() async throws {
        let gateway = try await TestGateway.start { $0.consoleHost = "0.0.0.0" }
        var http = try await console(gateway)
        http.caPath = gateway.caPath
        let form = try await http.send("GET", "/sign-in")
        #expect(form.status == 200)
        let signedIn = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=\(gateway.gateway.adminToken)")
        #expect(signedIn.header("set-cookie")?.hasSuffix("; Secure") == true)
        http.caPath = nil
        await #expect(throws: (any Error).self) { try await http.send("GET", "/sign-in") }  // no plain HTTP there
        try await gateway.stop()
    }
}
