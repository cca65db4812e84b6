import Foundation

extension CenterRuntime {
    /// The runtime of this process's app: the device daemon's, when one listens on `DATA_DIR/device/daemon.sock`;
    /// else in-process: `AppIdentity.current()`, the machine's notification store, a terminal prompt and
    /// presenter. A store that cannot be opened leaves every call failing with `notificationsNotAllowed`.
    package static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> CenterRuntime {
        let identity = AppIdentity.current(environment: environment)
        let socket = DaemonSocket.path(dataDirectory: identity.dataDirectory)
        if DaemonSocket.isListening(at: socket) {
            // The device daemon runs: it schedules, presents and routes for every app. When it launched this
            // process, standard output is the app's log file: line by line, so the log shows what happened as it does.
            if environment["HERALD_LAUNCH_REASON"] != nil { makeStandardOutputLineBuffered() }
            return CenterRuntime(bundleID: identity.bundleIdentifier, engine: .success(DaemonClient(path: socket)))
        }
        let engine: Result<any NotificationEngine, UNError>
        do {
            let store = try NotificationStore(path: identity.storePath)
            if let aside = store.movedAside {
                FileHandle.standardError.write(
                    Data(
                        """
                        UserNotifications: \(identity.storePath) was not a readable database; it was moved to \(aside) \
                        and a new store was started.\n
                        """.utf8))
            }
            let bundleDirectory = Bundle.main.bundleURL
            let attachmentRoot = identity.dataDirectory.appendingPathComponent("attachments")
            engine = .success(
                LocalEngine(
                    store: store, calendar: .current, prompt: TerminalAuthorizationPrompt(environment: environment),
                    presenter: TerminalPresenter(environment: environment),
                    attachments: { AttachmentStore(directory: attachmentRoot.appendingPathComponent($0), bundleDirectory: bundleDirectory) },
                    entitlements: { _ in AppEntitlements(bundleDirectory: bundleDirectory) }
                ))
        } catch {
            let message = "cannot open the notification store \(identity.storePath): \(error)"
            FileHandle.standardError.write(Data("UserNotifications: \(message)\n".utf8))
            engine = .failure(UNError(.notificationsNotAllowed, message, underlying: error))
        }
        return CenterRuntime(
            bundleID: identity.bundleIdentifier, engine: engine, location: SimulatedLocation(dataDirectory: identity.dataDirectory)
        )
    }
}
