#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's limit on open files: a gateway holds one per device link, and the usual soft limit (1,024)
/// would refuse devices long before the machine runs out of anything.
enum OpenFileLimit {
    /// Raises the soft limit to the hard one, as the system allows without privileges. Returns the limits
    /// before and after, or nil when it was already there or cannot be read or raised.
    static func raiseToHard() -> (from: UInt64, to: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return nil }
        let from = UInt64(limit.rlim_cur)
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (from, UInt64(limit.rlim_max))
    }
}
