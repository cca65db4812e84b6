import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Reads file descriptors (a child's standard output and error) on a thread of its own until each is at end of
/// file or `stop()` is called, handing every chunk to `received` and an empty chunk for each end of file (and for
/// each descriptor still open when stopped, so that whoever waits for the end hears of it). The thread owns the
/// descriptors and closes them when it ends.
final class OutputReader: Sendable {
    private let stopped = Mutex(false)

    init(descriptors: [Int32], received: @escaping @Sendable (Data) -> Void) {
        let thread = Thread { [self] in
            read(descriptors, received: received)
        }
        thread.name = "service-extension-output"
        thread.start()
    }

    /// Ends the thread within a poll interval, whatever is still open.
    func stop() {
        stopped.withLock { $0 = true }
    }

    private func read(_ descriptors: [Int32], received: @Sendable (Data) -> Void) {
        var open = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        defer {
            for descriptor in open {
                close(descriptor.fd)
                received(Data())
            }
        }
        while !open.isEmpty, !stopped.withLock({ $0 }) {
            let ready = poll(&open, nfds_t(open.count), 100)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            for index in open.indices.reversed() where open[index].revents != 0 {
                let count = Glibc.read(open[index].fd, &buffer, buffer.count)
                if count > 0 {
                    received(Data(buffer[..<count]))
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(open[index].fd)
                    open.remove(at: index)
                    received(Data())
                }
            }
        }
    }
}
