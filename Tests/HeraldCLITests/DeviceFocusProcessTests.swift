import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import HeraldWire
import Testing

/// `herald device focus` changing a running `herald device`: what it silences and lets through, as a script reads it.
@Suite struct DeviceFocusProcessTests {
    private func lines(_ process: HeraldProcess, event: String) -> [JSONValue] {
        process.output.split(separator: "\n").filter { $0.hasPrefix("{") }
            .compactMap { try? JSONValue.parse(Data($0.utf8)) }.filter { $0["event"]?.stringValue == event }
    }

    private func focus(_ arguments: [String], data: String) async throws -> CommandRunTests.Run {
        try await CommandRunTests.run(["device", "focus"] + arguments + ["--data-dir", data])
    }

    /// Sends `aps` and returns the device's line for it.
    private func deliver(
        _ aps: String, to token: String, via gateway: TestGateway, on device: HeraldProcess
    ) async throws -> JSONValue? {
        let before = lines(device, event: "notification").count
        let connection = try await gateway.connect()
        let headers = APNsConnection.notificationHeaders(token: token, topic: TestGateway.topic, jwt: gateway.defaultJWT)
        let response = try await connection.send(headers: headers, body: Data(#"{"aps":\#(aps)}"#.utf8))
        await connection.close()
        #expect(response.status == 200)
        _ = await device.waitForOutput { _ in lines(device, event: "notification").count > before }
        return lines(device, event: "notification").dropFirst(before).first
    }

    @Test func theFocusSilencesWhatItDoesNotLetThrough() async throws {
        let gateway = try await TestGateway.start()
        let data = CommandRunTests.temporaryDirectory()
        let device = try HeraldProcess.start([
            "device", "--gateway", "https://localhost:\(try await gateway.gateway.devicePort())", "--ca", gateway.caPath,
            "--data-dir", data, "--topic", TestGateway.topic, "--json",
        ])
        defer { device.terminate() }
        #expect(await device.waitForOutput(containing: #""registered""#), "\(device.errorOutput)")
        let token = try #require(lines(device, event: "registered").first?["deviceToken"]?.stringValue)
        let app = TestGateway.topic
        let timeSensitive = try await CommandRunTests.run(["device", "settings", "--app", app, "--time-sensitive", "on", "--data-dir", data])
        #expect(timeSensitive.status == 0 && timeSensitive.output.contains("time sensitive on"), "\(timeSensitive.error)")

        // Off: nothing is silenced.
        let plain = try await deliver(#"{"alert":"one","sound":"default"}"#, to: token, via: gateway, on: device)
        #expect(plain?["silencedBy"] == nil && plain?["body"]?.stringValue == "one")

        let on = try await focus(["on", "--name", "Work"], data: data)
        #expect(on.status == 0 && on.output.hasPrefix("Work: on"), "\(on.output)\(on.error)")
        #expect(await device.waitForOutput(containing: #""event":"focus""#), "\(device.output)")
        let event = try #require(lines(device, event: "focus").last)
        #expect(event["on"] == .bool(true) && event["name"]?.stringValue == "Work" && event["reason"]?.stringValue == "manual")

        let silenced = try await deliver(#"{"alert":"two"}"#, to: token, via: gateway, on: device)
        #expect(silenced?["silencedBy"]?.stringValue == "Work", "\(device.output)")
        let urgent = try await deliver(#"{"alert":"three","interruption-level":"time-sensitive"}"#, to: token, via: gateway, on: device)
        #expect(urgent?["silencedBy"] == nil && urgent?["interruptionLevel"]?.stringValue == "timeSensitive", "\(device.output)")

        // The Focus no longer lets time-sensitive notifications through; then it allows the app.
        _ = try await focus(["--time-sensitive", "off"], data: data)
        let held = try await deliver(#"{"alert":"four","interruption-level":"time-sensitive"}"#, to: token, via: gateway, on: device)
        #expect(held?["silencedBy"]?.stringValue == "Work", "\(device.output)")
        _ = try await focus(["--allow", app], data: data)
        #expect(try await deliver(#"{"alert":"five"}"#, to: token, via: gateway, on: device)?["silencedBy"] == nil)

        // A Focus filter: only the app's notifications with that filter-criteria alert.
        _ = try await focus(["--filter", "\(app)=work"], data: data)
        let matching = try await deliver(#"{"alert":"six","filter-criteria":"work"}"#, to: token, via: gateway, on: device)
        #expect(matching?["silencedBy"] == nil && matching?["filterCriteria"]?.stringValue == "work", "\(device.output)")
        let other = try await deliver(#"{"alert":"seven","filter-criteria":"home"}"#, to: token, via: gateway, on: device)
        #expect(other?["silencedBy"]?.stringValue == "Work", "\(device.output)")

        let shown = try await focus(["--json"], data: data)
        let state = try JSONValue.parse(Data(shown.output.utf8))
        #expect(state["allowedApps"] == .array([.string(app)]) && state["allowsTimeSensitive"] == .bool(false))
        #expect(state["filters"] == .object([app: .array([.string("work")])]))

        let off = try await focus(["off"], data: data)
        #expect(off.output.hasPrefix("Work: off"), "\(off.output)")
        #expect(await device.waitForOutput { _ in lines(device, event: "focus").last?["on"] == .bool(false) }, "\(device.output)")
        #expect(try await deliver(#"{"alert":"eight","filter-criteria":"home"}"#, to: token, via: gateway, on: device)?["silencedBy"] == nil)
        device.terminate()
        _ = await device.exitStatus()
        try await gateway.stop()
    }

    /// `until` with a time ends by itself; the daemon says so.
    @Test func aFocusUntilATimeEndsByItself() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let device = try HeraldProcess.start(["device", "--data-dir", data, "--json"])
        defer { device.terminate() }
        // The daemon runs (its socket is there) before the Focus turns on, so that it sees it on however slow the start.
        let socket = data + "/device/daemon.sock"
        #expect(await device.waitForOutput { _ in FileManager.default.fileExists(atPath: socket) }, "\(device.errorOutput)")
        let on = try await focus(["until", "4s"], data: data)
        #expect(on.status == 0 && on.output.contains("Do Not Disturb: on until"), "\(on.output)\(on.error)")
        #expect(await device.waitForOutput { _ in lines(device, event: "focus").first?["on"] == .bool(true) }, "\(device.output)")
        let started = lines(device, event: "focus").first
        #expect(started?["until"]?.stringValue != nil && started?["reason"]?.stringValue == "manual")
        #expect(await device.waitForOutput { _ in lines(device, event: "focus").last?["on"] == .bool(false) }, "\(device.output)")
        device.terminate()
        _ = await device.exitStatus()
    }

    @Test(arguments: [
        (["until"], "`until` takes a time"),
        (["until", "25:99"], "is not a time: write HH:MM"),
        (["on", "18:00"], "only `until` takes a time"),
        (["--schedule", "someday 09:00-10:00"], "--schedule: 'someday' is not a day"),
        (["--filter", "com.example.app"], "--filter takes APP=CRITERIA"),
        (["sometimes"], "'on', 'off', 'until' or 'status'"),
    ])
    func mistakesSayWhatToWrite(arguments: [String], message: String) async throws {
        let data = CommandRunTests.temporaryDirectory()
        let run = try await focus(arguments, data: data)
        #expect(run.status != 0 && run.error.contains(message), "\(run.error)")
    }

    /// Schedules are kept and shown as written; `--clear-schedules` removes them.
    @Test func schedulesAreKeptAndShown() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let run = try await focus(["--schedule", "mon-fri 22:00-07:00", "--schedule", "sat,sun 09:00-12:00", "--follow-desktop", "off"], data: data)
        #expect(run.output.contains("schedules: weekdays 22:00-07:00; weekends 09:00-12:00"), "\(run.output)")
        #expect(run.output.contains("ignores the desktop's do-not-disturb"), "\(run.output)")
        let cleared = try await focus(["--clear-schedules"], data: data)
        #expect(!cleared.output.contains("schedules"), "\(cleared.output)")
    }

    /// The switches an entitlement stands behind: an installed app without it is refused, naming the key; with the
    /// bundle's `.entitlements` file, `--allow` turns Time Sensitive on as iOS does for an entitled app.
    @Test func entitledSwitchesNeedTheBundlesEntitlements() async throws {
        let root = CommandRunTests.temporaryDirectory()
        let data = root + "/data"
        let app = try AppsCommandTests.serviceApp(in: root)
        let installed = try await CommandRunTests.run([
            "apps", "install", app, "--executable-dir", AppsCommandTests.buildDirectory, "--data-dir", data,
        ])
        #expect(installed.status == 0, "\(installed.error)")
        let settings = ["device", "settings", "--app", "com.example.service", "--data-dir", data]
        _ = try await CommandRunTests.run(settings + ["--allow"])
        let refused = try await CommandRunTests.run(settings + ["--time-sensitive", "on"])
        #expect(refused.status != 0, "\(refused.output)")
        #expect(refused.error.contains("has no com.apple.developer.usernotifications.time-sensitive entitlement"), "\(refused.error)")
        #expect(refused.error.contains("to a .entitlements file in"), "\(refused.error)")

        let entitlements: [String: Any] = ["com.apple.developer.usernotifications.time-sensitive": true]
        try PropertyListSerialization.data(fromPropertyList: entitlements, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: app + "/Service.entitlements"))
        let denied = try await CommandRunTests.run(settings + ["--deny"])  // so that --allow answers afresh, entitled
        #expect(denied.status == 0)
        let again = try await CommandRunTests.run(settings + ["--allow", "--json"])
        let json = try JSONValue.parse(Data(again.output.utf8))
        #expect(json["timeSensitive"]?.stringValue == "on" && json["criticalAlerts"]?.stringValue == "not supported", "\(again.output)")
        let critical = try await CommandRunTests.run(settings + ["--critical-alerts", "on"])
        #expect(critical.status != 0 && critical.error.contains("critical-alerts entitlement"), "\(critical.error)")
    }
}

/// `herald device summary` with a running `herald device`: what waits, what does not, and the summary a script reads.
@Suite struct DeviceSummaryProcessTests {
    @Test func anAppsNotificationsWaitForTheSummaryAndArriveAsOne() async throws {
        let gateway = try await TestGateway.start()
        let data = CommandRunTests.temporaryDirectory()
        let device = try HeraldProcess.start([
            "device", "--gateway", "https://localhost:\(try await gateway.gateway.devicePort())", "--ca", gateway.caPath,
            "--data-dir", data, "--topic", TestGateway.topic, "--json",
        ])
        defer { device.terminate() }
        #expect(await device.waitForOutput(containing: #""registered""#), "\(device.errorOutput)")
        let events = { (name: String) in
            device.output.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }.filter { $0["event"]?.stringValue == name }
        }
        let token = try #require(events("registered").first?["deviceToken"]?.stringValue)
        let app = TestGateway.topic
        _ = try await CommandRunTests.run(["device", "settings", "--app", app, "--time-sensitive", "on", "--data-dir", data])
        let on = try await CommandRunTests.run(["device", "summary", "on", "--add", app, "--time", "07:30", "--data-dir", data])
        #expect(on.output.hasPrefix("Scheduled Summary: on · at 07:30") && on.output.contains("apps: \(app)"), "\(on.output)\(on.error)")
        let settings = try await CommandRunTests.run(["device", "settings", "--app", app, "--data-dir", data, "--json"])
        #expect(settings.output.contains(#""scheduledDelivery":"on""#), "\(settings.output)")

        for (text, extra) in [
            ("low", #","relevance-score":0.1"#), ("high", #","relevance-score":0.9"#), ("now", #","interruption-level":"time-sensitive""#),
        ] {
            let connection = try await gateway.connect()
            let headers = APNsConnection.notificationHeaders(token: token, topic: app, jwt: gateway.defaultJWT)
            let response = try await connection.send(headers: headers, body: Data(#"{"aps":{"alert":"\#(text)"\#(extra)}}"#.utf8))
            await connection.close()
            #expect(response.status == 200)
        }
        // The time-sensitive one comes at once; the others wait.
        #expect(await device.waitForOutput { _ in !events("notification").isEmpty }, "\(device.output)")
        let waiting = try await CommandRunTests.run(["device", "summary", "--json", "--data-dir", data])
        #expect(try JSONValue.parse(Data(waiting.output.utf8))["waiting"] == .integer(2), "\(waiting.output)")
        #expect(events("notification").map { $0["body"]?.stringValue } == ["now"])

        // Turned off, the summary delivers what it held, as one, most relevant first.
        _ = try await CommandRunTests.run(["device", "summary", "off", "--data-dir", data])
        #expect(await device.waitForOutput { _ in !events("summary").isEmpty }, "\(device.output)\(device.errorOutput)")
        let summary = try #require(events("summary").first)
        #expect(summary["count"] == .integer(2) && summary["title"]?.stringValue?.hasPrefix("Your ") == true)
        let bodies: [String?]? =
            if case .array(let notifications)? = summary["notifications"] { notifications.map { $0["body"]?.stringValue } } else { nil }
        #expect(bodies == ["high", "low"], "\(summary)")
        #expect(events("notification").count == 1, "a summary's notifications have no lines of their own")
        device.terminate()
        _ = await device.exitStatus()
        try await gateway.stop()
    }

    @Test func mistakesSayWhatToWrite() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let bad = try await CommandRunTests.run(["device", "summary", "--time", "8am", "--data-dir", data])
        #expect(bad.status != 0 && bad.error.contains("--time takes HH:MM"), "\(bad.error)")
        let status = try await CommandRunTests.run(["device", "summary", "--data-dir", data])
        #expect(status.output.hasPrefix("Scheduled Summary: off · at 08:00, 18:00"), "\(status.output)")
    }
}
