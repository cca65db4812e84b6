#if canImport(Glibc)
import Glibc
#endif

/// Why a D-Bus operation failed, in words a person can act on.
package enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// sd-bus could not be loaded: `library` (libsystemd.so.0, or `HERALD_LIBSYSTEMD`) is missing or is not systemd's.
    case libraryMissing(library: String, reason: String)
    /// No session bus address: `DBUS_SESSION_BUS_ADDRESS` is unset and `$XDG_RUNTIME_DIR/bus` does not exist.
    case noSessionBus
    /// The bus at this address could not be reached.
    case unreachable(address: String, errno: Int32)
    /// The connection is closed (the bus went away, or it was closed here).
    case closed
    /// The other side answered with a D-Bus error.
    case remote(name: String, message: String)
    /// A call sd-bus refused (`what` failed with `errno`).
    case system(String, errno: Int32)
    /// A message whose contents could not be read.
    case malformed(String)

    package var description: String {
        switch self {
        case .libraryMissing(let library, let reason):
            "cannot load \(library), systemd's D-Bus library (\(reason)): install it (Debian and Ubuntu: apt install libsystemd0), or set HERALD_LIBSYSTEMD to its path"
        case .noSessionBus: "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist"
        case .unreachable(let address, let errno): "cannot reach the D-Bus session bus at \(address): \(Self.text(errno))"
        case .closed: "the D-Bus connection is closed"
        case .remote(let name, let message): message.isEmpty ? name : "\(name): \(message)"
        case .system(let what, let errno): "D-Bus \(what) failed: \(Self.text(errno))"
        case .malformed(let what): "unreadable D-Bus message: \(what)"
        }
    }

    private static func text(_ errno: Int32) -> String {
        String(cString: strerror(errno))
    }
}
