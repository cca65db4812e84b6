import NIOCore
import Synchronization

/// The connections open on a listener, so that its shutdown can close them.
final class OpenChannels: Sendable {
    private let table = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        table.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { _ in _ = self.table.withLock { $0.removeValue(forKey: id) } }
    }

    var all: [any Channel] { table.withLock { Array($0.values) } }
}
