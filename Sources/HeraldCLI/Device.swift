import ArgumentParser
import Crypto
import Foundation
import HeraldDBus
import HeraldDevice
import HeraldStore
import HeraldWire
import Logging
import Synchronization
import UnixSignals
import UserNotifications

/// `herald device`: this machine as a device of a Herald gateway.
struct Device: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be a device: register apps with a gateway and receive their notifications.",
        subcommands: [
            Run.self, Unregister.self, DeviceRespond.self, DeviceShow.self, DeviceSettings.self, DeviceFocus.self, DeviceSummary.self,
            DeviceLocation.self,
        ],
        defaultSubcommand: Run.self
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the device's notification daemon: the gateway link, every installed app's notifications, responses.",
            discussion: """
                Apps on this machine (installed with `herald apps install`) reach the daemon over \
                DATA_DIR/device/daemon.sock; it schedules and presents their notifications, runs their service \
                extensions and hands responses back, launching an app that does not run. With --gateway it \
                registers the installed apps and every --topic with the gateway (reconnecting when the link drops).
                """
        )

        @OptionGroup var link: DeviceLinkOptions

        @Option(name: .customLong("topic"), help: "An app's bundle id to register besides the installed apps; repeat for several.")
        var topics: [String] = []

        @Flag(help: "One JSON object per line, for scripts.")
        var json = false

        @Flag(
            name: .customLong("unifiedpush"), inversion: .prefixedNo,
            help: "With --gateway, be a UnifiedPush distributor on the D-Bus session bus (org.unifiedpush.Distributor.herald; docs/unifiedpush.md)."
        )
        var unifiedPush = true

        @Option(
            name: .customLong("presenter"),
            help: ArgumentHelp(
                "Where notifications are shown: desktop (the session's notification server), terminal (cards), json (lines) or none; repeat for several at once.",
                discussion:
                    "Default: $HERALD_PRESENTER (comma-separated), else json with --json, else desktop when a session bus is known (terminal otherwise)."
            )
        )
        var presenters: [PresenterChoice] = []

        @Option(name: .customLong("extension-budget"), help: "Seconds a service extension may take before serviceExtensionTimeWillExpire().")
        var extensionBudget: Double = 30

        @Option(
            name: .customLong("ui-port"),
            help: ArgumentHelp(
                "Serve the notification center page on this port of 127.0.0.1 (0: any free port); it prints the page's address.",
                discussion:
                    "The page lists delivered notifications and expands them through their apps' content extensions. Its address carries this device's secret (DATA_DIR/device/notification-center-secret): keep it to yourself."
            ))
        var uiPort: Int?

        func validate() throws {
            try validateTopics(topics)
            if !topics.isEmpty, link.gateway == nil {
                throw ValidationError("--topic registers apps with a gateway: add --gateway https://HOST:5223")
            }
            guard extensionBudget > 0, extensionBudget <= 3600 else { throw ValidationError("--extension-budget takes seconds between 0 and 3600") }
            if let uiPort, !(0...65535).contains(uiPort) { throw ValidationError("--ui-port takes a port between 0 and 65535 (0: any free port)") }
            _ = try choices()
        }

        /// The presenters asked for (or the default), each once.
        func choices(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [PresenterChoice] {
            var choices = presenters
            if choices.isEmpty, let named = environment["HERALD_PRESENTER"], !named.isEmpty {
                choices = try named.split(separator: ",").map { name in
                    guard let choice = PresenterChoice(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                        throw ValidationError("HERALD_PRESENTER=\(named): each name must be desktop, terminal, json or none")
                    }
                    return choice
                }
            }
            if choices.isEmpty {
                choices = [json ? .json : DBusConnection.sessionAddress(environment: environment) != nil ? .desktop : .terminal]
            }
            var seen: Set<PresenterChoice> = []
            choices = choices.filter { seen.insert($0).inserted }
            if choices.contains(.none), choices.count > 1 { throw ValidationError("--presenter none shows nothing: give it alone") }
            return choices
        }

        /// The presenters for `choices`: the desktop falls back to terminal cards when it is alone, and offers "Show"
        /// when the notification center page is served at `notificationCenter`.
        func presenters(for choices: [PresenterChoice], printer: DevicePrinter, notificationCenter: NotificationCenterAddress) -> [any Presenter] {
            choices.compactMap { choice -> (any Presenter)? in
                switch choice {
                case .terminal: TerminalCardPresenter()
                case .json: JSONLinesPresenter()
                case .desktop:
                    DesktopPresenter(
                        stateFile: URL(fileURLWithPath: link.dataDirectory).appendingPathComponent("device/desktop-notifications.json"),
                        fallback: choices.contains(.terminal) || choices.contains(.json) ? nil : TerminalCardPresenter(),
                        log: { printer.warn($0) }, notificationCenter: uiPort == nil ? nil : notificationCenter)
                case .none: nil
                }
            }
        }

        func run() async throws {
            var configuration = DeviceDaemonConfiguration(
                dataDirectory: URL(fileURLWithPath: link.dataDirectory), link: try link.gateway.map { _ in try link.open() }
            )
            configuration.topics = topics
            configuration.extensionBudget = .milliseconds(Int64(extensionBudget * 1000))
            configuration.extensionGrace = min(.seconds(5), configuration.extensionBudget)
            configuration.notificationCenterPort = uiPort
            configuration.distributesUnifiedPush = unifiedPush
            let printer = DevicePrinter(json: json)
            let daemon: DeviceDaemon
            do {
                daemon = try DeviceDaemon(
                    configuration: configuration,
                    presenters: presenters(for: try choices(), printer: printer, notificationCenter: configuration.notificationCenterAddress),
                    prompt: TerminalAuthorizationPrompt(asker: .daemon),
                    report: { printer.show($0) }
                )
            } catch {
                throw ValidationError("cannot open the notification store in \(link.dataDirectory): \(error)")
            }
            if !json, isatty(STDIN_FILENO) != 0 {
                printer.warn("answer a notification here: ID (open), ID dismiss, or ID ACTION [reply text]")
                Task { await TerminalResponder(daemon: daemon, printer: printer).run() }
            }
            do {
                // SIGTERM or SIGINT: stop serving, stop the apps the daemon launched, remove the socket.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await daemon.run() }
                    group.addTask {
                        for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { return }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch let error as UNError {
                throw ValidationError(error.localizedDescription)
            }
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an app from this device: later pushes to its token get 410 Unregistered."
        )

        @OptionGroup var link: DeviceLinkOptions

        @Option(help: "The app's bundle id.")
        var topic: String

        @Flag(help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            try validateTopics([topic])
            if link.gateway == nil { throw ValidationError("name the gateway: --gateway https://HOST:5223") }
        }

        func run() async throws {
            let gatewayLink = try link.open()
            let outcome = Mutex<Result<String, ValidationError>?>(nil)
            let reason = try await gatewayLink.session(requests: [.unregister(topic: topic)]) { event in
                switch event {
                case .unregistered(_, let token):
                    outcome.withLock { $0 = .success(token) }
                    return false
                case .refused(_, let message, _):
                    outcome.withLock { $0 = .failure(ValidationError(message)) }
                    return false
                case .connected, .registered, .notification, .liveActivity:
                    return true
                }
            }
            switch outcome.withLock({ $0 }) {
            case .success(let token)?:
                if json {
                    printNow(
                        String(
                            decoding: JSONValue.object([
                                "event": .string("unregistered"), "topic": .string(topic), "deviceToken": .string(token),
                            ]).encoded(), as: UTF8.self))
                } else {
                    printNow("unregistered \(topic); its token \(token) now answers 410 Unregistered")
                }
            case .failure(let error)?:
                throw error
            case nil:
                throw ValidationError("the gateway closed the link before answering (\(reason))")
            }
        }
    }
}

/// The options every `herald device` command shares.
struct DeviceLinkOptions: ParsableArguments {
    @Option(help: "The gateway's device port, e.g. https://localhost:5223.")
    var gateway: String?

    @Option(help: "PEM file of the CA to trust (the gateway's DATA_DIR/tls/ca.pem).")
    var ca: String?

    @Option(
        name: .customLong("data-dir"),
        help: "Where the device keeps its key, its apps and their notifications (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
    var dataDirectory: String = AppIdentity.dataDirectory().path

    /// The link to `--gateway`. It keeps no journal of seen apns-ids: the daemon's inbox drops resends.
    func open() throws -> GatewayLink {
        guard let gateway else { throw ValidationError("name the gateway: --gateway https://HOST:5223") }
        let directory = DataDirectory(path: dataDirectory).deviceDirectory
        let key: Crypto.P256.Signing.PrivateKey
        do {
            key = try DeviceKey.loadOrCreate(in: directory)
        } catch {
            throw ValidationError("cannot read or create the device key in \(directory.path): \(error.localizedDescription)")
        }
        if let ca, !FileManager.default.isReadableFile(atPath: ca) {
            throw ValidationError("cannot read the CA certificate \(ca): no such file or not readable")
        }
        do {
            return try GatewayLink(gateway: gateway, caPath: ca, key: key, journal: nil)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// `--presenter`: where `herald device` shows notifications.
enum PresenterChoice: String, CaseIterable, ExpressibleByArgument {
    case desktop, terminal, json, none
}
