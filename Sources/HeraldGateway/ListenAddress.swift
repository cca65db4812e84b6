/// What a configured listening host (`--host`, `--console-host`) means for a client on the same machine.
public enum ListenAddress {
    /// Whether `host` listens on every address of the machine (0.0.0.0, ::), or on none named (empty).
    public static func isWildcard(_ host: String) -> Bool {
        ["0.0.0.0", "::", "[::]", ""].contains(host)
    }

    /// The address a client on this machine connects to: loopback for a wildcard, else `host` itself.
    public static func local(_ host: String) -> String {
        switch host {
        case "::", "[::]": "::1"
        case _ where isWildcard(host): "127.0.0.1"
        default: host
        }
    }
}
