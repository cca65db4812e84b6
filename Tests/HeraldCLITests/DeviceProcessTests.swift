import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import HeraldWire
import Testing

/// `herald device` as a process against a live gateway: the JSON lines scripts rely on, stable tokens, unregister.
@Suite struct DeviceProcessTests {
    /// The JSON lines of one event (cards of a terminal presenter beside them are skipped).
    private func lines(_ process: HeraldProcess, event: String) throws -> [JSONValue] {
        process.output.split(separator: "\n").filter { $0.hasPrefix("{") }
            .compactMap { try? JSONValue.parse(Data($0.utf8)) }.filter { $0["event"]?.stringValue == event }
    }

    private func push(_ gateway: TestGateway, to token: String, collapseID: String? = nil, body: String) async throws -> APNsResponse {
        let connection = try await gateway.connect()
        let headers = APNsConnection.notificationHeaders(
            token: token, topic: TestGateway.topic, jwt: gateway.defaultJWT, collapseID: collapseID
        )
        let response = try await connection.send(headers: headers, body: Data(body.utf8))
        await connection.close()
        return response
    }

    /// Devices on other machines name the gateway by address: IPv4 and IPv6 literals link (no SNI, the certificate's
    /// IP addresses checked).
    @Test(arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "[::1]")])
    func deviceLinksToAGatewayNamedByAddress(listening host: String, url: String) async throws {
        let gateway = try await TestGateway.start { $0.host = host }
        let data = CommandRunTests.temporaryDirectory()
        let device = try HeraldProcess.start([
            "device", "--gateway", "https://\(url):\(try await gateway.gateway.devicePort())", "--ca", gateway.caPath,
            "--data-dir", data, "--topic", TestGateway.topic, "--json",
        ])
        defer { device.terminate() }
        #expect(await device.waitForOutput(containing: #""registered""#), "\(device.errorOutput)")
        #expect(!device.errorOutput.contains("reconnecting"), "\(device.errorOutput)")
        device.terminate()
        _ = await device.exitStatus()
        try await gateway.stop()
    }

    /// A gateway certificate the device refuses is said in words, with the flag that fixes it, at most once a
    /// minute while the daemon keeps retrying (it reconnects every few seconds).
    @Test func aRefusedGatewayCertificateIsSaidOnceWhileTheDeviceRetries() async throws {
        let gateway = try await TestGateway.start()
        let other = try await TestGateway.start()
        let data = CommandRunTests.temporaryDirectory()
        let device = try HeraldProcess.start([
            "device", "--gateway", "https://127.0.0.1:\(try await gateway.gateway.devicePort())", "--ca", other.caPath,
            "--data-dir", data, "--topic", TestGateway.topic, "--json",
        ])
        defer { device.terminate() }
        #expect(await device.waitForErrorOutput(containing: "pass --ca"), "\(device.errorOutput)")
        try await Task.sleep(for: .seconds(3))  // the link retries after 0.2, 0.4, 0.8 and 1.6 s
        let said = device.errorOutput.components(separatedBy: "the gateway's certificate is not signed by the CA you trust").count - 1
        #expect(said == 1, "\(device.errorOutput)")
        #expect(!device.errorOutput.contains("CERTIFICATE_VERIFY_FAILED"), "\(device.errorOutput)")
        device.terminate()
        _ = await device.exitStatus()
        try await other.stop()
        try await gateway.stop()
    }

    /// Several presenters at once: a card for people and a JSON line for a script, of the same notification.
    @Test func severalPresentersShowEachNotification() async throws {
        let gateway = try await TestGateway.start()
        let data = CommandRunTests.temporaryDirectory()
        let device = try HeraldProcess.start([
            "device", "--gateway", "https://localhost:\(try await gateway.gateway.devicePort())", "--ca", gateway.caPath,
            "--data-dir", data, "--topic", TestGateway.topic, "--json", "--presenter", "terminal", "--presenter", "json",
        ])
        defer { device.terminate() }
        #expect(await device.waitForOutput(containing: #""registered""#), "\(device.errorOutput)")
        let token = try #require(try lines(device, event: "registered").first?["deviceToken"]?.stringValue)
        #expect(try await push(gateway, to: token, body: #"{"aps":{"alert":{"title":"Both ways"}}}"#).status == 200)
        #expect(await device.waitForOutput(containing: #""notification""#), "\(device.output)\(device.errorOutput)")
        #expect(await device.waitForOutput(containing: "│ Both ways"), "\(device.output)")
        #expect(try lines(device, event: "notification").count == 1, "\(device.output)")
        #expect(device.output.components(separatedBy: "│ Both ways").count - 1 == 1, "\(device.output)")
        device.terminate()
        _ = await device.exitStatus()

        let refused = try await CommandRunTests.run(["device", "--data-dir", data, "--presenter", "none", "--presenter", "json"])
        #expect(refused.status != 0 && refused.error.contains("--presenter none shows nothing"), "\(refused.error)")
        try await gateway.stop()
    }

    @Test func deviceRegistersPrintsNotificationsAsJSONAndUnregisters() async throws {
        let gateway = try await TestGateway.start()
        let data = CommandRunTests.temporaryDirectory()
        let link = ["--gateway", "https://localhost:\(try await gateway.gateway.devicePort())", "--ca", gateway.caPath, "--data-dir", data]

        let device = try HeraldProcess.start(["device"] + link + ["--topic", TestGateway.topic, "--json"])
        defer { device.terminate() }
        #expect(await device.waitForOutput(containing: #""registered""#), "\(device.errorOutput)")
        let registered = try #require(try lines(device, event: "registered").first)
        #expect(registered["topic"]?.stringValue == TestGateway.topic)
        let token = try #require(registered["deviceToken"]?.stringValue)
        #expect(DeviceToken(hex: token) != nil)

        let payload = """
            {"aps":{"alert":{"title":"Title","subtitle":"Sub","body":"Body"},"badge":3,"sound":"ping.caf",\
            "category":"MESSAGE","thread-id":"chat-7"},"orderID":42}
            """
        let response = try await push(gateway, to: token, collapseID: "order-42", body: payload)
        #expect(response.status == 200)
        #expect(await device.waitForOutput(containing: #""notification""#), "\(device.errorOutput)")
        let shown = try #require(try lines(device, event: "notification").first)
        #expect(shown["apnsID"]?.stringValue == response.apnsID)
        #expect(shown["identifier"]?.stringValue == "order-42")
        #expect(shown["topic"]?.stringValue == TestGateway.topic)
        #expect(shown["title"]?.stringValue == "Title")
        #expect(shown["subtitle"]?.stringValue == "Sub")
        #expect(shown["body"]?.stringValue == "Body")
        #expect(shown["badge"] == .integer(3))
        #expect(shown["sound"]?.stringValue == "ping.caf")
        #expect(shown["categoryIdentifier"]?.stringValue == "MESSAGE")
        #expect(shown["threadIdentifier"]?.stringValue == "chat-7")
        #expect(shown["userInfo"] == (try JSONValue.parse(Data(payload.utf8))))
        // SIGTERM stops a linked device at once (it used to wait out NIOSSL's 5 s close_notify timeout) and
        // is not reported as a dropped link.
        let stopping = ContinuousClock.now
        device.terminate()
        _ = await device.exitStatus()
        #expect(ContinuousClock.now - stopping < .seconds(4))
        #expect(!device.errorOutput.contains("reconnecting"), "\(device.errorOutput)")

        // The same data dir is the same device: the same token.
        let restarted = try HeraldProcess.start(["device"] + link + ["--topic", TestGateway.topic, "--json"])
        defer { restarted.terminate() }
        #expect(await restarted.waitForOutput(containing: #""registered""#), "\(restarted.errorOutput)")
        #expect(try lines(restarted, event: "registered").first?["deviceToken"]?.stringValue == token)
        restarted.terminate()
        _ = await restarted.exitStatus()

        let unregister = try HeraldProcess.start(["device", "unregister"] + link + ["--topic", TestGateway.topic, "--json"])
        #expect(await unregister.exitStatus() == 0, "\(unregister.errorOutput)")
        #expect(try lines(unregister, event: "unregistered").first?["deviceToken"]?.stringValue == token)
        let gone = try await push(gateway, to: token, body: #"{"aps":{"alert":"anyone there?"}}"#)
        #expect(gone.status == 410)
        #expect(gone.reason == .unregistered)
        #expect(gone.timestamp != nil)
        try await gateway.stop()
    }

    @Test func deviceExplainsAnUnreachableGatewayAndABadCA() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let missingCA = try await CommandRunTests.run([
            "device", "--gateway", "https://localhost:1", "--ca", data + "/none.pem", "--topic", "com.example.app", "--data-dir", data,
        ])
        #expect(missingCA.status != 0)
        #expect(missingCA.error.contains("cannot read the CA certificate"))
        let badURL = try await CommandRunTests.run(["device", "unregister", "--gateway", "ftp://x", "--topic", "com.example.app", "--data-dir", data])
        #expect(badURL.status != 0)
        #expect(badURL.error.contains("https://"))
    }
}

/// `herald device settings` and `herald device location`, as the Settings app and a location source.
@Suite struct DeviceSettingsProcessTests {
    @Test func settingsAllowDenyAndToggle() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let shown = try await CommandRunTests.run(["device", "settings", "--app", "com.example.app", "--data-dir", data, "--json"])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output.contains(#""authorizationStatus":"not determined""#))

        let toggleFirst = try await CommandRunTests.run(["device", "settings", "--app", "com.example.app", "--sound", "off", "--data-dir", data])
        #expect(toggleFirst.status != 0)
        #expect(toggleFirst.error.contains("--allow"))

        let allowed = try await CommandRunTests.run([
            "device", "settings", "--app", "com.example.app", "--allow", "--sound", "off", "--data-dir", data, "--json",
        ])
        #expect(allowed.output.contains(#""authorizationStatus":"authorized""#) && allowed.output.contains(#""sound":"off""#))
        #expect(allowed.output.contains(#""alert":"on""#))

        let hidden = try await CommandRunTests.run([
            "device", "settings", "--app", "com.example.app", "--previews", "never", "--data-dir", data, "--json",
        ])
        #expect(hidden.output.contains(#""previews":"never""#), "\(hidden.output)\(hidden.error)")
        let unlocked = try await CommandRunTests.run([
            "device", "settings", "--app", "com.example.app", "--previews", "when-unlocked", "--data-dir", data,
        ])
        #expect(unlocked.output.contains("previews when-unlocked"), "\(unlocked.output)")
        let badPreviews = try await CommandRunTests.run([
            "device", "settings", "--app", "com.example.app", "--previews", "sometimes", "--data-dir", data,
        ])
        #expect(badPreviews.status != 0 && badPreviews.error.contains("'always', 'when-unlocked' or 'never'"), "\(badPreviews.error)")

        let persistent = try await CommandRunTests.run([
            "device", "settings", "--app", "com.example.app", "--alert-style", "persistent", "--data-dir", data, "--json",
        ])
        #expect(persistent.output.contains(#""alertStyle":"persistent""#), "\(persistent.output)\(persistent.error)")
        _ = try await CommandRunTests.run(["device", "settings", "--app", "com.example.app", "--alert", "off", "--data-dir", data])
        let noAlerts = try await CommandRunTests.run([
            "device", "settings", "--app", "com.example.app", "--alert-style", "persistent", "--data-dir", data,
        ])
        #expect(noAlerts.status != 0 && noAlerts.error.contains("alerts are off: turn them on first with --alert on"), "\(noAlerts.error)")

        let denied = try await CommandRunTests.run(["device", "settings", "--app", "com.example.app", "--deny", "--data-dir", data])
        #expect(denied.output.contains("com.example.app: denied"))
    }

    @Test func locationIsValidatedAndWritten() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let bad = try await CommandRunTests.run(["device", "location", "--data-dir", data, "--", "123", "13.4"])
        #expect(bad.status != 0 && bad.error.contains("latitude -90…90"))
        let set = try await CommandRunTests.run(["device", "location", "--data-dir", data, "52.52", "13.405"])
        #expect(set.status == 0)
        let written = try String(contentsOfFile: data + "/location.json", encoding: .utf8)
        #expect(written.contains("52.52") && written.contains("13.405"))
        // JSON has no NaN or infinity: such a location is refused and the one set stays readable.
        for (latitude, longitude) in [("nan", "13.4"), ("52.5", "inf"), ("1e400", "0")] {
            let refused = try await CommandRunTests.run(["device", "location", "--data-dir", data, "--", latitude, longitude])
            #expect(refused.status != 0 && refused.error.contains("is no place: a location is latitude -90…90"), "\(refused.error)")
        }
        #expect(try String(contentsOfFile: data + "/location.json", encoding: .utf8) == written)
    }
}
