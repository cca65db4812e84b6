import Foundation
import HeraldClient
import HeraldDevice
import HeraldGateway
import HeraldGatewayTesting
import HeraldSpawn
import HeraldTesting
import HeraldWire
import Testing
import UserNotifications

/// A device for the daemon's tests: a live gateway, a data dir with installed apps (bundles written here, executables
/// from .build/debug), and `herald device --json` running as the daemon.
final class DaemonFixture: Sendable {
    let gateway: TestGateway
    let data: String
    let daemon: HeraldProcess
    let daemonArguments: [String]

    static let app = TestGateway.topic
    static let otherApp = "com.example.other"

    /// Installs the test app as `app` (with the test service extension when `serviceExtension`) and `otherApp`,
    /// then starts the daemon and waits until the gateway registered `app`.
    /// `extraArguments` and `environment` go to the daemon (`--presenter desktop` and a test bus's address, say).
    /// `liveActivities` declares `NSSupportsLiveActivities` in `app`'s Info.plist; `widgetExtension` gives `app` the
    /// test widget extension.
    static func start(
        serviceExtension: Bool = false, strings: [String: String] = [:], budget: Double = 2, extraArguments: [String] = [],
        environment: [String: String] = [:], liveActivities: Bool = false, widgetExtension: Bool = false
    ) async throws -> DaemonFixture {
        let gateway = try await TestGateway.start()
        let data = CommandRunTests.temporaryDirectory()
        for bundleID in [app, otherApp] {
            let bundle = try writeBundle(
                bundleID, in: data, serviceExtension: serviceExtension && bundleID == app, strings: strings,
                liveActivities: liveActivities && bundleID == app, widgetExtension: widgetExtension && bundleID == app)
            let installed = try await CommandRunTests.run(["apps", "install", bundle, "--executable-dir", builtDirectory, "--data-dir", data])
            #expect(installed.status == 0, "\(installed.error)")
        }
        let arguments =
            [
                "device", "--gateway", "https://localhost:\(try await gateway.gateway.devicePort())", "--ca", gateway.caPath,
                "--data-dir", data, "--json", "--extension-budget", "\(budget)",
            ] + extraArguments
        let daemon = try HeraldProcess.start(arguments, environment: environment)
        let fixture = DaemonFixture(gateway: gateway, data: data, daemon: daemon, daemonArguments: arguments)
        #expect(await fixture.daemon.waitForOutput(containing: #""topic":"\#(app)""#), "\(fixture.daemon.errorOutput)")
        return fixture
    }

    private init(gateway: TestGateway, data: String, daemon: HeraldProcess, daemonArguments: [String]) {
        self.gateway = gateway
        self.data = data
        self.daemon = daemon
        self.daemonArguments = daemonArguments
    }

    /// The data dir holds two copies of a debug executable (about 200 MB): gone with the fixture, not at exit.
    deinit {
        TemporaryPath.remove(data)
    }

    static var builtDirectory: String { HeraldProcess.built("herald").deletingLastPathComponent().path }

    /// `DATA/bundles/ID.app` with an Info.plist naming `herald-test-app` (`otherApp` gets its own copy of it),
    /// a service extension naming `herald-test-service-extension`, a widget extension naming
    /// `herald-test-widget-extension`, and `en.lproj/Localizable.strings`.
    private static func writeBundle(
        _ bundleID: String, in data: String, serviceExtension: Bool, strings: [String: String], liveActivities: Bool, widgetExtension: Bool
    ) throws -> String {
        let bundle = URL(fileURLWithPath: data).appendingPathComponent("bundles/\(bundleID).app")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        var info: [String: Any] = ["CFBundleIdentifier": bundleID, "CFBundleExecutable": "herald-test-app", "CFBundleName": "Test"]
        if liveActivities { info["NSSupportsLiveActivities"] = true }
        try plist(info).write(to: bundle.appendingPathComponent("Info.plist"))
        if bundleID == otherApp {
            // Its own copy of the executable: the daemon knows apps by their executables.
            try FileManager.default.copyItem(at: HeraldProcess.built("herald-test-app"), to: bundle.appendingPathComponent("herald-test-app"))
        }
        if serviceExtension {
            let appex = bundle.appendingPathComponent("PlugIns/Service.appex")
            try FileManager.default.createDirectory(at: appex, withIntermediateDirectories: true)
            try plist([
                "CFBundleIdentifier": bundleID + ".Service", "CFBundleExecutable": "herald-test-service-extension",
                "NSExtension": [
                    "NSExtensionPointIdentifier": "com.apple.usernotifications.service",
                    "NSExtensionPrincipalClass": "TestServiceExtension",
                ],
            ]).write(to: appex.appendingPathComponent("Info.plist"))
        }
        if widgetExtension {
            let appex = bundle.appendingPathComponent("PlugIns/Widget.appex")
            try FileManager.default.createDirectory(at: appex, withIntermediateDirectories: true)
            try plist([
                "CFBundleIdentifier": bundleID + ".Widget", "CFBundleExecutable": "herald-test-widget-extension",
                "NSExtension": ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"],
            ]).write(to: appex.appendingPathComponent("Info.plist"))
        }
        if !strings.isEmpty {
            let lproj = bundle.appendingPathComponent("en.lproj")
            try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
            let text = strings.map { "\"\($0.key)\" = \"\($0.value)\";" }.joined(separator: "\n")
            try Data(text.utf8).write(to: lproj.appendingPathComponent("Localizable.strings"))
        }
        return bundle.path
    }

    private static func plist(_ value: [String: Any]) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
    }

    /// The daemon's JSON lines of one event.
    func events(_ event: String) -> [JSONValue] {
        daemon.lines.filter { $0["event"]?.stringValue == event }
    }

    /// The app's device token, as the daemon announced it.
    func token(of topic: String = DaemonFixture.app) throws -> String {
        try #require(events("registered").first { $0["topic"]?.stringValue == topic && $0["kind"] == nil }?["deviceToken"]?.stringValue)
    }

    /// Waits for a daemon line with this event where `matching` holds.
    func waitForEvent(_ event: String, where matching: (JSONValue) -> Bool = { _ in true }) async -> JSONValue? {
        await daemon.waitForEvent(event, where: matching)
    }

    /// Pushes `payload` to `token` and returns the gateway's answer.
    @discardableResult
    func push(_ payload: String, to token: String? = nil, collapseID: String? = nil, background: Bool = false) async throws -> APNsResponse {
        let connection = try await gateway.connect()
        let headers = APNsConnection.notificationHeaders(
            token: try token ?? self.token(), topic: Self.app, jwt: gateway.defaultJWT,
            pushType: background ? .background : nil, priority: background ? 5 : nil, collapseID: collapseID
        )
        let response = try await connection.send(headers: headers, body: Data(payload.utf8))
        await connection.close()
        return response
    }

    /// Starts the test app as `bundleID` would be started by a person (its own process, the daemon's data dir).
    func startApp(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> HeraldProcess {
        try HeraldProcess.start(
            arguments, executable: HeraldProcess.built("herald-test-app"), environment: environment.merging(["HERALD_DATA_DIR": data]) { a, _ in a })
    }

    /// The lines an app launched by the daemon wrote (DATA/device/logs/ID.log).
    func launchedAppLines(_ bundleID: String = DaemonFixture.app) -> [JSONValue] {
        let text = (try? String(contentsOfFile: data + "/device/logs/\(bundleID).log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }
    }

    /// Waits (up to 10 s) for the app the daemon launched to write a line with this event.
    func waitForLaunchedAppEvent(_ event: String) async -> JSONValue? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let found = launchedAppLines().first(where: { $0["event"]?.stringValue == event }) { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    func respond(_ arguments: [String]) async throws -> CommandRunTests.Run {
        try await CommandRunTests.run(["device", "respond"] + arguments + ["--data-dir", data])
    }

    func stop() async throws {
        daemon.terminate()
        _ = await daemon.exitStatus()
        try await gateway.stop()
    }
}

extension HeraldProcess {
    /// The JSON lines on standard output.
    var lines: [JSONValue] {
        output.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }
    }

    /// Waits for a JSON line with this event where `matching` holds.
    func waitForEvent(_ event: String, timeout: Duration = .seconds(20), where matching: (JSONValue) -> Bool = { _ in true }) async -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = lines.first(where: { $0["event"]?.stringValue == event && matching($0) }) { return found }
            if !process.isRunning { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return lines.first { $0["event"]?.stringValue == event && matching($0) }
    }
}
