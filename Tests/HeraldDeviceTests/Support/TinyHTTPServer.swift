import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Serves one body to every HTTP request on 127.0.0.1 (a port the system picks), on a thread of its own, until
/// stopped: enough for an extension's download.
final class TinyHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32

    init(body: Data, contentType: String) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard listener >= 0, bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let response =
            Data("HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                Self.answer(connection, with: response)
            }
        }
    }

    private static func answer(_ connection: Int32, with response: Data) {
        defer { close(connection) }
        var request = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 65_536, !request.contains(Data("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request.append(contentsOf: buffer[..<count])
        }
        _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

private extension Data {
    func contains(_ other: Data) -> Bool { range(of: other) != nil }
}
