import HeraldGateway
import HeraldGatewayTesting
import NIOCore
import Testing

@Suite("The Web Push port's deadlines")
struct WebPushPortTests {
    /// As on the provider port: a connection that sends nothing is closed.
    @Test func aSilentConnectionIsClosed() async throws {
        let gateway = try await TestGateway.start { $0.providerHandshakeTimeout = .milliseconds(300) }
        let silent = try await RawTCPConnection.connect(port: gateway.gateway.webPushPort)
        #expect(try await silent.bytesUntilClosed(timeout: .seconds(10)) != nil, "a connection that sent nothing stays open")
        try await gateway.stop()
    }

    /// An HTTP/1.1 connection kept alive after its answer, then left quiet, is closed at the idle timeout.
    @Test func aQuietKeptAliveConnectionIsClosed() async throws {
        let gateway = try await TestGateway.start {
            $0.plaintext = true
            $0.idleTimeout = .seconds(1)
        }
        let connection = try await RawTCPConnection.connect(port: gateway.gateway.webPushPort)
        try await connection.write(Array("GET /push/ab HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        let answered = try await connection.bytes(until: { String(buffer: $0).contains("MethodNotAllowed") }, timeout: .seconds(10))
        #expect(String(buffer: answered).hasPrefix("HTTP/1.1 405"))
        #expect(try await connection.bytesUntilClosed(timeout: .seconds(10)) != nil, "a quiet connection stays open past the idle timeout")
        try await gateway.stop()
    }
}
