package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The lines of file descriptor 0, without their newlines, read with read(2) until end of file or an error.
package struct StandardInputLines: Sequence, IteratorProtocol {
    private var buffer = Data()
    private var atEnd = false

    package init() {}

    package mutating func next() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                return Data(line)
            }
            if atEnd {
                defer { buffer = Data() }
                return buffer.isEmpty ? nil : buffer
            }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let count = read(0, &chunk, chunk.count)
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                atEnd = true
            }
        }
    }
}
