package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the device daemon listens, and who is on the other end of a connection.
package enum DaemonSocket {
    /// `DATA_DIR/device/daemon.sock`.
    package static func path(dataDirectory: URL) -> String {
        dataDirectory.appendingPathComponent("device/daemon.sock").path
    }

    /// Whether a daemon accepts connections at `path` now (a connect that is closed again at once).
    package static func isListening(at path: String) -> Bool {
        guard let descriptor = connectedSocket(to: path) else { return false }
        close(descriptor)
        return true
    }

    /// A blocking stream socket connected to `path`, for the caller to close; nil when nothing accepts there.
    package static func connectedSocket(to path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}

/// The process on the other end of a daemon connection, from the kernel (SO_PEERCRED), not from anything
/// the process says.
package struct PeerCredentials: Sendable, Hashable {
    package var pid: Int32
    package var uid: UInt32
    /// `/proc/PID/exe`: the executable the process runs (nil when it is gone or unreadable).
    package var executable: URL?

    package init(pid: Int32, uid: UInt32) {
        self.pid = pid
        self.uid = uid
        executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"))
            .map { URL(fileURLWithPath: $0).resolvingSymlinksInPath() }
    }

    /// The executable of this process.
    package static var ownExecutable: URL? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map { URL(fileURLWithPath: $0).resolvingSymlinksInPath() }
    }
}
