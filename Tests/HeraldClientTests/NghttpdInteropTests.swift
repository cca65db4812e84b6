import Foundation
import HeraldClient
import HeraldSpawn
import HeraldWire
import NIOCore
import NIOPosix
import Testing

/// HeraldClient against nghttp2's own server (`nghttpd`, Debian's nghttp2-server, which scripts/test.sh installs): the
/// reference HTTP/2 implementation in C decodes the client's header blocks, dynamic table included, and answers with
/// Huffman-coded ones of its own. A mistake in either direction ends the connection with COMPRESSION_ERROR there.
@Suite struct NghttpdInteropTests {
    /// nghttpd serving a directory over h2c; it answers a request for an existing file 200 whatever the method.
    struct Server {
        let process: ChildProcess
        let url: URL
        let directory: URL

        static func start(files: [String]) async throws -> Server {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nghttpd-\(UUID().uuidString)")
            let devices = directory.appendingPathComponent("3/device")
            try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
            for file in files { try Data("served\n".utf8).write(to: devices.appendingPathComponent(file)) }
            let port = try await freePort()
            let process = try ChildProcess.launch(
                "/usr/sbin/nghttpd", arguments: ["--no-tls", "--address=127.0.0.1", "-d", directory.path, String(port)])
            for _ in 0..<100 {
                let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                if let probe = try? await bootstrap.connect(host: "127.0.0.1", port: port).get() {
                    try await probe.close()
                    return Server(process: process, url: URL(string: "http://127.0.0.1:\(port)")!, directory: directory)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            process.terminate()
            throw CancellationError()
        }

        func stop() async {
            process.terminate()
            _ = await process.terminated()
            try? FileManager.default.removeItem(at: directory)
        }

        /// A port free now: bound, then closed before nghttpd binds it (closed unawaited, it was still ours when the
        /// probe below connected, under a loaded run, and nghttpd had failed to bind).
        private static func freePort() async throws -> Int {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
            let port = try #require(channel.localAddress?.port)
            try await channel.close()
            return port
        }
    }

    @Test func requestsAndAnswersOnOneConnectionDecodeOnBothSides() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/nghttpd"),
            "nghttpd is missing: apt-get install nghttp2-server (scripts/test.sh installs it)")
        let tokens = (0..<3).map { index in DeviceToken(bytes: [UInt8](repeating: UInt8(index + 1), count: 32)) }
        let server = try await Server.start(files: tokens.prefix(2).map(\.hex))
        let client = try ClientFixtures.client(server.url) { $0.maximumConnections = 1 }
        // The first request indexes the authority, topic, push type and JWT; the ones after send them as indexes.
        for round in 0..<3 {
            for token in tokens.prefix(2) {
                let result = await ClientFixtures.outcome(client, .alert(bundleID: "com.example.app", alert: .init(body: "\(round)")), to: token)
                #expect(throws: Never.self) { try result.get() }
            }
        }
        let missing = await ClientFixtures.outcome(client, .alert(bundleID: "com.example.app", alert: .init(body: "x")), to: tokens[2])
        #expect(missing.failure?.status == 404)
        await client.shutdown()
        await server.stop()
    }
}
