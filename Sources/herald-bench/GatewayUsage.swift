import Foundation

/// What the gateway process has used, read from /proc.
struct GatewayUsage {
    let pid: Int32

    /// User and system CPU time the gateway has used, all threads.
    func cpuTime() -> Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name; utime and stime are the 14th and 15th of the whole line.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return .milliseconds((user + system) * 1000 / Int(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// VmRSS of the gateway, in bytes.
    func residentMemory() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }
}
