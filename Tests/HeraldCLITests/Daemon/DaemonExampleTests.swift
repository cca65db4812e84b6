import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import HeraldWire
import Testing

/// The podcast and end-to-end examples as a person would run them: installed bundles, the daemon, real pushes.
@Suite(.serialized) struct DaemonExampleTests {
    /// A gateway, the example's bundle installed in a fresh data dir, its notifications allowed, the daemon running.
    private func start(_ bundle: String, app: String) async throws -> (TestGateway, String, HeraldProcess) {
        let gateway = try await TestGateway.start()
        let data = CommandRunTests.temporaryDirectory()
        let root = HeraldProcess.built("herald").deletingLastPathComponent()
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")
        let installed = try await CommandRunTests.run([
            "apps", "install", examples.appendingPathComponent(bundle).path, "--executable-dir", root.path, "--data-dir", data,
        ])
        #expect(installed.status == 0, "\(installed.error)")
        let allowed = try await CommandRunTests.run(["device", "settings", "--app", app, "--allow", "--data-dir", data])
        #expect(allowed.status == 0, "\(allowed.error)")
        let daemon = try HeraldProcess.start([
            "device", "--gateway", "https://localhost:\(try await gateway.gateway.devicePort())", "--ca", gateway.caPath,
            "--data-dir", data, "--json", "--extension-budget", "10",
        ])
        #expect(await daemon.waitForEvent("registered") { $0["topic"]?.stringValue == app } != nil, "\(daemon.errorOutput)")
        return (gateway, data, daemon)
    }

    private func push(_ payload: String, to token: String, topic: String, via gateway: TestGateway) async throws -> APNsResponse {
        let connection = try await gateway.connect()
        let response = try await connection.send(
            headers: APNsConnection.notificationHeaders(token: token, topic: topic, jwt: gateway.defaultJWT), body: Data(payload.utf8)
        )
        await connection.close()
        return response
    }

    /// `herald device show` expands a new episode through the podcast's content extension: its text and cover as text,
    /// then "later", which the extension answers by redrawing and keeping the view up.
    @Test func showExpandsTheEpisodeThroughTheContentExtension() async throws {
        let (gateway, data, daemon) = try await start("Podcast/Podcast.app", app: "com.example.podcast")
        defer { daemon.terminate() }
        let token = try #require(daemon.lines.first { $0["event"]?.stringValue == "registered" }?["deviceToken"]?.stringValue)
        let payload = #"{"aps":{"alert":{"title":"New episode","body":"Episode 12: the one about push"},"category":"new-episode"}}"#
        let response = try await push(payload, to: token, topic: "com.example.podcast", via: gateway)
        let shown = await daemon.waitForEvent("notification") { $0["apnsID"]?.stringValue == response.apnsID }
        let identifier = try #require(shown?["identifier"]?.stringValue)

        let expanded = try await CommandRunTests.run(["device", "show", identifier, "--data-dir", data])
        #expect(expanded.status == 0, "\(expanded.error)")
        // UNNotificationExtensionDefaultContentHidden: the extension's view alone, under the app's name.
        #expect(expanded.output.hasPrefix("com.example.podcast\n  Episode 12: the one about push\n"), "\(expanded.output)")
        #expect(!expanded.output.contains("New episode"), "\(expanded.output)")
        // preferredContentSize 300 points high: the view takes 14 rows of 22 points.
        let viewRows = expanded.output.split(separator: "\n").dropFirst().prefix { !$0.hasPrefix("actions:") }
        #expect(viewRows.count == 14, "\(expanded.output.debugDescription)")

        let later = try await CommandRunTests.run(["device", "show", identifier, "--action", "later", "--data-dir", data])
        #expect(later.status == 0, "\(later.error)")
        // Resized after load to 60 points: 3 rows.
        #expect(
            later.output.hasSuffix("later: the extension keeps the view up:\n  Saved for later. We'll remind you tonight.\n  \n  \n"),
            "\(later.output)")

        let unknown = try await CommandRunTests.run(["device", "show", "no-such-notification", "--data-dir", data])
        #expect(
            unknown.status != 0 && unknown.error.contains("no delivered notification has the identifier no-such-notification"), "\(unknown.error)")
        try await gateway.stop()
    }

    @Test func thePodcastExtensionNamesTheGuestAndAttachesTheImage() async throws {
        let (gateway, data, daemon) = try await start("Podcast/Podcast.app", app: "com.example.podcast")
        defer { daemon.terminate() }
        let token = try #require(daemon.lines.first { $0["event"]?.stringValue == "registered" }?["deviceToken"]?.stringValue)
        let image = data + "/cover.png"
        try Data([
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
            0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41,
            0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xC9, 0xFE, 0x92, 0xEF, 0x00, 0x00, 0x00,
            0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ]).write(to: URL(fileURLWithPath: image))
        let payload = """
            {"aps":{"alert":{"title":"New episode","body":"Listen now"},"mutable-content":1,"category":"new-episode"},\
            "podcast-guest":"Ada Lovelace","podcast-image":"file://\(image)"}
            """
        let response = try await push(payload, to: token, topic: "com.example.podcast", via: gateway)
        #expect(response.status == 200)
        let shown = await daemon.waitForEvent("notification") { $0["apnsID"]?.stringValue == response.apnsID }
        #expect(shown?["title"]?.stringValue == "New episode with Ada Lovelace", "\(daemon.errorOutput)")
        guard case .array(let attachments)? = shown?["attachments"] else {
            Issue.record("no attachments in \(String(describing: shown))")
            return
        }
        let attachment = attachments.first
        #expect(attachment?["identifier"]?.stringValue == "podcast-image")
        let stored = try #require(attachment?["path"]?.stringValue)
        #expect(stored.hasPrefix(data + "/attachments/com.example.podcast/"))
        #expect(FileManager.default.contents(atPath: stored)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))

        // Tapping it launches the app, whose didReceive still finds the image; once the app has had it, it goes.
        let identifier = try #require(shown?["identifier"]?.stringValue)
        let tapped = try await CommandRunTests.run(["device", "respond", identifier, "--app", "com.example.podcast", "--data-dir", data])
        #expect(tapped.status == 0, "\(tapped.error)")
        let log = data + "/device/logs/com.example.podcast.log"
        let deadline = ContinuousClock.now + .seconds(20)
        while FileManager.default.fileExists(atPath: stored), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(printed.contains("Playing the episode with Ada Lovelace\nShowing the cover (69 bytes)"), "app log: \(printed)")
        #expect(!FileManager.default.fileExists(atPath: stored), "the attachment outlived the app's didReceive")
        daemon.terminate()
        _ = await daemon.exitStatus()
        try await gateway.stop()
    }

    /// The messaging example's communication notifications: its service extension updates each message from an
    /// INSendMessageIntent, so the daemon shows the sender (name, handle, avatar); a Focus lets an allowed person's
    /// messages through; direct messages skip the scheduled summary while the app's Direct Messages setting is on.
    @Test func theMessagingExampleShowsTheSenderThroughAFocusAndOutsideTheSummary() async throws {
        let app = "com.example.messaging"
        let (gateway, data, daemon) = try await start("Messaging/Messaging.app", app: app)
        defer { daemon.terminate() }
        let token = try #require(daemon.lines.first { $0["event"]?.stringValue == "registered" }?["deviceToken"]?.stringValue)
        let launched = try HeraldProcess.start(
            [], executable: HeraldProcess.built("MessagingApp"), environment: ["HERALD_DATA_DIR": data, "MESSAGING_LIFETIME": "0"])
        #expect(await launched.exitStatus() == 0, "\(launched.output)\(launched.errorOutput)")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 16)).write(
            to: URL(fileURLWithPath: data + "/alice.png"))
        let message = { (from: String, handle: String, group: String?, text: String) in
            let groupKey = group.map { #","group":"\#($0)""# } ?? ""
            return """
                {"aps":{"alert":{"title":"\(from)","body":"\(text)"},"mutable-content":1,"thread-id":"chat-\(handle)","category":"message"},\
                "sender":{"name":"\(from)","handle":"\(handle)","avatar":"file://\(data)/alice.png"}\(groupKey)}
                """
        }
        let deliver = { (payload: String) async throws -> JSONValue? in
            let response = try await self.push(payload, to: token, topic: app, via: gateway)
            #expect(response.status == 200)
            return await daemon.waitForEvent("notification") { $0["apnsID"]?.stringValue == response.apnsID }
        }

        let first = try await deliver(message("Alice", "alice@example.com", nil, "Lunch?"))
        #expect(
            first?["sender"]
                == .object(["name": .string("Alice"), "handle": .string("alice@example.com"), "conversation": .string("chat-alice@example.com")]),
            "\(daemon.errorOutput)")
        let avatars = (try? FileManager.default.contentsOfDirectory(atPath: data + "/device/avatars")) ?? []
        #expect(avatars.count == 1 && avatars.first?.hasSuffix(".png") == true, "the avatar is a file for the presenters: \(avatars)")

        _ = try await CommandRunTests.run(["device", "focus", "on", "--allow-person", "alice@example.com", "--data-dir", data])
        #expect(try await deliver(message("Alice", "alice@example.com", nil, "Still on?"))?["silencedBy"] == nil)
        let team = try await deliver(message("Bob", "bob@example.com", "Team", "Standup moved"))
        #expect(
            team?["silencedBy"]?.stringValue == "Do Not Disturb" && team?["sender"]?["group"]?.stringValue == "Team", "\(String(describing: team))")
        _ = try await CommandRunTests.run(["device", "focus", "off", "--data-dir", data])
        // A message without a sender stays an ordinary notification.
        let plain = try await deliver(#"{"aps":{"alert":{"title":"Messaging","body":"Welcome"},"mutable-content":1}}"#)
        #expect(plain?["sender"] == nil && plain?["body"]?.stringValue == "Welcome")

        _ = try await CommandRunTests.run(["device", "summary", "on", "--add", app, "--data-dir", data])
        #expect(try await deliver(message("Carol", "carol@example.com", nil, "Call me"))?["sender"]?["name"]?.stringValue == "Carol")
        let off = try await CommandRunTests.run(["device", "settings", "--app", app, "--direct-messages", "off", "--data-dir", data])
        #expect(off.status == 0, "\(off.error)")
        let held = try await push(message("Dave", "dave@example.com", nil, "Later is fine"), to: token, topic: app, via: gateway)
        #expect(held.status == 200)
        var waiting: JSONValue?
        for _ in 0..<100 {
            waiting = try JSONValue.parse(Data(try await CommandRunTests.run(["device", "summary", "--json", "--data-dir", data]).output.utf8))[
                "waiting"]
            if waiting == .integer(1) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(waiting == .integer(1), "with Direct Messages off the message waits for the summary")
        daemon.terminate()
        _ = await daemon.exitStatus()
        try await gateway.stop()
    }

    @Test func theEndToEndExampleDecryptsOnTheDeviceOnly() async throws {
        let (gateway, data, daemon) = try await start("EndToEnd/EndToEnd.app", app: "com.example.e2e")
        defer { daemon.terminate() }
        let environment = ["HERALD_DATA_DIR": data, "HERALD_AUTHORIZATION": "grant", "E2E_LIFETIME": "0"]
        let app = try HeraldProcess.start([], executable: HeraldProcess.built("EndToEndApp"), environment: environment)
        #expect(await app.exitStatus() == 0, "\(app.output)\(app.errorOutput)")
        let token = try #require(app.output.split(separator: "\n").first { $0.hasPrefix("Device Token: ") }?.dropFirst(14))
        let provider = try HeraldProcess.start(
            ["--title", "Launch", "The code is 4711"], executable: HeraldProcess.built("EndToEndProvider"), environment: environment
        )
        #expect(await provider.exitStatus() == 0, "\(provider.errorOutput)")
        let payload = provider.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!payload.contains("4711") && !payload.contains("Launch"), "the provider's payload holds the plaintext")
        let response = try await push(payload, to: String(token), topic: "com.example.e2e", via: gateway)
        #expect(response.status == 200)
        let shown = await daemon.waitForEvent("notification") { $0["apnsID"]?.stringValue == response.apnsID }
        #expect(shown?["title"]?.stringValue == "Launch", "\(daemon.errorOutput)")
        #expect(shown?["body"]?.stringValue == "The code is 4711")
        daemon.terminate()
        _ = await daemon.exitStatus()
        try await gateway.stop()
    }

    /// The delivery example as docs/live-activities.md walks through it: a channel made with `herald channels`, the app
    /// following its activities, a remote start with `herald send --live-activity start` on the push-to-start token
    /// that subscribes the activity to the channel, a broadcast update and a broadcast end with a dismissal date.
    @Test func theDeliveryExampleFollowsAnActivityStartedByPushAndUpdatedByBroadcasts() async throws {
        let (gateway, data, daemon) = try await start("Delivery/Delivery.app", app: "com.example.delivery")
        defer { daemon.terminate() }
        let keyPath = data + "/provider.p8"
        try gateway.privateKey.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let credentials = ["--ca", gateway.caPath, "--p8", keyPath, "--key-id", TestGateway.keyID, "--team-id", TestGateway.teamID]
        let created = try await CommandRunTests.run(
            ["channels", "create", "--gateway", "https://localhost:\(gateway.gateway.channelsPort)"] + credentials
                + ["--bundle", "com.example.delivery", "--storage-policy", "1"])
        let channel = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(created.status == 0 && channel.count == 24, "\(created.error)")
        let pushToStart = try #require(
            await daemon.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)

        let app = try HeraldProcess.start(
            [], executable: HeraldProcess.built("DeliveryApp"), environment: ["HERALD_DATA_DIR": data, "DELIVERY_LIFETIME": "30"])
        defer { app.terminate() }
        #expect(await app.waitForOutput(containing: "Push-to-start token: \(pushToStart)"), "\(app.output)\(app.errorOutput)")
        let send = ["send", "--gateway", gateway.url.absoluteString] + credentials + ["--topic", "com.example.delivery"]
        let now = Int(Date().timeIntervalSince1970)
        let started = try await CommandRunTests.run(
            send + ["--device", pushToStart, "--live-activity", "start", "--attributes-type", "DeliveryAttributes", "-"],
            input: #"{"aps":{"timestamp":\#(now),"attributes":{"name":"Order #4417"},"#
                + #""content-state":{"progress":0.3,"status":"Baking","eta":"12 min"},"#
                + #""alert":{"title":"Your order is in the oven","body":"About 12 minutes"},"input-push-channel":"\#(channel)"}}"#)
        #expect(started.status == 0, "\(started.output)\(started.error)")
        #expect(await app.waitForOutput(containing: "Order #4417: Baking"), "\(app.output)")
        #expect(await daemon.waitForEvent("subscribed") { $0["channelID"]?.stringValue == channel } != nil)

        let expiration = String(now + 3600)
        let updated = try await CommandRunTests.run(
            send + ["--channel", channel, "--live-activity", "update", "--expiration", expiration, "-"],
            input: #"{"aps":{"timestamp":\#(now + 1),"content-state":{"progress":0.7,"status":"Out for delivery","eta":"4 min"}}}"#)
        #expect(updated.status == 0, "\(updated.output)\(updated.error)")
        #expect(await app.waitForOutput(containing: "Order #4417: Out for delivery, 70%, ETA 4 min"), "\(app.output)")
        // The example's widget extension draws the activity, again with each change.
        let drawn = await daemon.waitForEvent("activity") { $0["state"]?["status"]?.stringValue == "Out for delivery" }
        #expect(drawn?["view"] == .array(["Order #4417", "Out for delivery", "[progress 70%]", "Arriving 4 min"].map(JSONValue.string)))
        let ended = try await CommandRunTests.run(
            send + ["--channel", channel, "--live-activity", "end", "--expiration", expiration, "--dismissal-date", String(now + 2), "-"],
            input: #"{"aps":{"timestamp":\#(now + 2),"content-state":{"progress":1,"status":"Delivered","eta":"now"}}}"#)
        #expect(ended.status == 0, "\(ended.output)\(ended.error)")
        #expect(await app.waitForOutput(containing: "Order #4417 is ended"), "\(app.output)")
        #expect(await app.waitForOutput(containing: "Order #4417 is dismissed"), "\(app.output)")
        // Each sequence says a change once: no state line for a content change, no content line for a state change.
        let lines = app.output.split(separator: "\n")
        #expect(!lines.contains("Order #4417 is active") && lines.count { $0.hasPrefix("Order #4417: Delivered") } == 1, "\(app.output)")
        #expect(await daemon.waitForEvent("unsubscribed") { $0["channelID"]?.stringValue == channel } != nil)
        app.terminate()
        daemon.terminate()
        _ = await daemon.exitStatus()
        try await gateway.stop()
    }
}
