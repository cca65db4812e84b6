#if canImport(Glibc)
import Glibc
#endif
// With FoundationNetworking re-exported, a release build takes `struct stat` for CoreFoundation's declaration.
import CoreFoundation
import Foundation

extension ServiceExtensionRunner {
    enum ResultRead: Equatable {
        case absent
        case tooLarge(Int)
        case unreadable(String)
        case data(Data)
    }

    /// Reads the result file without following a symbolic link or opening anything but a regular file (the
    /// extension chose what is there), and only if it has at most `limit` bytes.
    static func readResult(at url: URL, limit: Int) -> ResultRead {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            return errno == ENOENT ? .absent : .unreadable(String(cString: strerror(errno)))
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .unreadable(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .unreadable("it is not a regular file") }
        guard status.st_size <= limit else { return .tooLarge(Int(status.st_size)) }
        do {
            let data = try file.read(upToCount: max(limit, 0) + 1) ?? Data()
            return data.count > limit ? .tooLarge(data.count) : .data(data)
        } catch {
            return .unreadable(error.localizedDescription)
        }
    }
}
