import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
        // The size by seeking, which a pipe or socket refuses (`struct stat` is no use here: which C module declares
        // it changes from build to build, and MemberImportVisibility then refuses its members). A directory fails
        // at the read below; a device yields more than the limit.
        let size = lseek(descriptor, 0, SEEK_END)
        guard size >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return .unreadable("it is not a regular file") }
        guard size <= limit else { return .tooLarge(Int(size)) }
        do {
            let data = try file.read(upToCount: max(limit, 0) + 1) ?? Data()
            return data.count > limit ? .tooLarge(data.count) : .data(data)
        } catch {
            return .unreadable(error.localizedDescription)
        }
    }
}
