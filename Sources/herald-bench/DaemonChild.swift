import ArgumentParser
import Foundation
import HeraldDevice
import HeraldSpawn
import HeraldWire

/// `herald device --json` run by a benchmark: where it is and what it serves.
struct DaemonOptions: ParsableArguments {
    @Option(help: "The herald binary that runs the daemon.")
    var herald: String

    @Option(name: .customLong("device-gateway"), help: "The gateway's device port, e.g. https://localhost:5223.")
    var deviceGateway: String

    @Option(name: .customLong("data-dir"), help: "The device's data dir: the app installed and allowed there.")
    var dataDirectory: String

    /// Starts the daemon with `extraArguments`; each JSON line it prints goes to `onEvent` with the instant it was
    /// read, from a thread of its own, so reading is not held up by the sender.
    /// - Parameter standardError: the daemon's standard error; nil passes it on to the bench's.
    func launch(
        ca: String?, extraArguments: [String] = [], environment: [String: String]? = nil, standardError: Int32? = ChildProcess.nullDevice,
        onEvent: @escaping @Sendable (JSONValue, ContinuousClock.Instant) -> Void
    ) throws -> ChildProcess {
        let output = Pipe()
        let reader = Thread {
            var pending = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let now = ContinuousClock.now
                    let line = pending[pending.startIndex..<newline]
                    pending = Data(pending[pending.index(after: newline)...])
                    if let event = try? JSONValue.parse(Data(line)) { onEvent(event, now) }
                }
            }
        }
        let daemon = try ChildProcess.launch(
            herald,
            arguments: ["device", "--gateway", deviceGateway, "--data-dir", dataDirectory, "--json"] + (ca.map { ["--ca", $0] } ?? [])
                + extraArguments,
            environment: environment,
            standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: standardError
        )
        try output.fileHandleForWriting.close()  // the daemon has its copy: its end of file is the reader's
        reader.start()
        return daemon
    }
}
