@_spi(CustomByteBufferAllocator) package import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte buffers of device-link channels: a block of 16 KiB or more gets pages of its own (`mmap`), smaller ones
/// come from `malloc`.
///
/// swift-nio-ssl gives each TLS connection a 32 KiB plaintext buffer and a 16 KiB outbound buffer for its whole life,
/// while an idle device link writes a few hundred bytes of each. Carved from malloc's heap, those blocks reuse memory
/// that other connections' handshakes have written, so most of their pages stay resident; on pages of their own only
/// the pages a link has written are (one each for an idle link), and a closed link's pages go back to the system at
/// once. About 2.5 KB less per idle TLS link (docs/scaling.md), and nothing measurable in the fan-out's throughput.
///
/// Each block has a header saying how it was made, since `deallocate` is not told the size.
package enum DeviceLinkBuffers {
    package static let allocator = ByteBufferAllocator(
        allocate: { size in allocateBlock(size) },
        reallocate: { pointer, oldSize, newSize in reallocateBlock(pointer, oldSize, newSize) },
        deallocate: { pointer in releaseBlock(pointer) },
        copy: { destination, source, count in destination.copyMemory(from: source, byteCount: count) }
    )

    /// Blocks this large get pages of their own.
    private static let pageBackedSize = 16 * 1024

    /// Bytes before each block, holding the length of its mapping (0 for a block from malloc); 16 keeps blocks
    /// 16-byte aligned.
    package static let headerSize = 16

    private static func allocateBlock(_ size: Int) -> UnsafeMutableRawPointer? {
        if size >= pageBackedSize, let block = mapped(size) { return block }
        guard let raw = malloc(size + headerSize) else { return nil }
        raw.storeBytes(of: 0, as: Int.self)
        return raw + headerSize
    }

    private static func mapped(_ size: Int) -> UnsafeMutableRawPointer? {
        let length = size + headerSize
        let raw = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        // Out of mappings (vm.max_map_count) or address space: malloc serves it instead.
        guard let raw, raw != MAP_FAILED else { return nil }
        #if os(Linux)
        // With transparent huge pages "always" (some distributions' default), the kernel could back neighbouring
        // blocks with one 2 MiB page, all of it resident.
        madvise(raw, length, MADV_NOHUGEPAGE)
        #endif
        raw.storeBytes(of: length, as: Int.self)
        return raw + headerSize
    }

    private static func mappedLength(of block: UnsafeMutableRawPointer) -> Int {
        (block - headerSize).load(as: Int.self)
    }

    private static func reallocateBlock(_ block: UnsafeMutableRawPointer?, _ oldSize: Int, _ newSize: Int) -> UnsafeMutableRawPointer? {
        guard let block else { return allocateBlock(newSize) }
        if mappedLength(of: block) == 0 && newSize < pageBackedSize {
            guard let raw = realloc(block - headerSize, newSize + headerSize) else { return nil }
            return raw + headerSize
        }
        guard let moved = allocateBlock(newSize) else { return nil }
        moved.copyMemory(from: block, byteCount: min(oldSize, newSize))
        releaseBlock(block)
        return moved
    }

    private static func releaseBlock(_ block: UnsafeMutableRawPointer) {
        let raw = block - headerSize
        let length = mappedLength(of: block)
        if length > 0 {
            munmap(raw, length)
        } else {
            free(raw)
        }
    }
}
