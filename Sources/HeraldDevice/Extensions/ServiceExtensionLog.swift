import Foundation

/// What an extension printed, kept within `limit` bytes: the first half and the last half of it, with a line
/// saying how much was left out between them.
struct ServiceExtensionLog: Sendable {
    static let defaultLimit = 64 << 10

    private let limit: Int
    private var head = Data()
    private var tail = Data()
    /// Every byte printed, kept or not.
    private(set) var byteCount = 0

    init(limit: Int = ServiceExtensionLog.defaultLimit) {
        self.limit = max(limit, 2)
    }

    mutating func append(_ data: Data) {
        byteCount += data.count
        var rest = data[...]
        let headRoom = limit / 2 - head.count
        if headRoom > 0 {
            head.append(rest.prefix(headRoom))
            rest = rest.dropFirst(headRoom)
        }
        guard !rest.isEmpty else { return }
        tail.append(rest)
        if tail.count > limit { tail = Data(tail.suffix(limit / 2)) }
    }

    var text: String {
        let keptTail = tail.suffix(limit / 2)
        let omitted = byteCount - head.count - keptTail.count
        let gap = omitted > 0 ? "\n[… \(omitted) bytes of log left out …]\n" : ""
        return String(decoding: head, as: UTF8.self) + gap + String(decoding: keptTail, as: UTF8.self)
    }
}
