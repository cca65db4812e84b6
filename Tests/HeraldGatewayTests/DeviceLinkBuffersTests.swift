import Foundation
import HeraldGateway
import NIOCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DeviceLinkBuffersTests {
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    @Test func aLargeBufferHasPagesOfItsOwnAndOnlyTheWrittenOnesAreResident() throws {
        var buffer = DeviceLinkBuffers.allocator.buffer(capacity: 32 * 1024)
        buffer.writeBytes([UInt8](repeating: 7, count: 300))
        let resident = try buffer.withUnsafeReadableBytes { bytes in
            let block = UnsafeMutableRawPointer(mutating: bytes.baseAddress!) - DeviceLinkBuffers.headerSize
            #expect(Int(bitPattern: block) % pageSize == 0, "a large block starts a page of its own")
            return try residentPages(block, length: 32 * 1024 + DeviceLinkBuffers.headerSize)
        }
        #expect(resident.first == true)
        #expect(resident.dropFirst().allSatisfy { !$0 }, "pages nothing was written to stay out of memory: \(resident)")
        let flags = try buffer.withUnsafeReadableBytes { try mappingFlags(containing: UnsafeRawPointer($0.baseAddress!)) }
        #expect(flags.contains("nh"), "no transparent huge pages, which would make neighbouring blocks resident: \(flags)")
        #expect(buffer.readBytes(length: 300) == [UInt8](repeating: 7, count: 300))
    }

    @Test func aSmallBufferGrowsIntoPagesAndKeepsItsBytes() {
        var buffer = DeviceLinkBuffers.allocator.buffer(capacity: 64)
        let first = (0..<64).map { UInt8($0) }
        buffer.writeBytes(first)
        let more = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        buffer.writeBytes(more)  // past 16 KiB: moved from malloc to pages of its own
        #expect(buffer.capacity >= 40_064)
        #expect(buffer.readBytes(length: 64) == first)
        #expect(buffer.readBytes(length: 40_000) == more)
    }

    @Test func aLargeBufferGrowsAndACopyWrittenToKeepsBothApart() {
        var original = DeviceLinkBuffers.allocator.buffer(capacity: 16 * 1024)
        original.writeBytes([UInt8](repeating: 1, count: 16 * 1024))
        var copy = original
        copy.writeBytes([UInt8](repeating: 2, count: 20_000))  // copy on write, then growth, page-backed both times
        #expect(original.readableBytes == 16 * 1024)
        #expect(original.readableBytesView.allSatisfy { $0 == 1 })
        #expect(copy.readBytes(length: 16 * 1024) == [UInt8](repeating: 1, count: 16 * 1024))
        #expect(copy.readBytes(length: 20_000) == [UInt8](repeating: 2, count: 20_000))
    }

    @Test func smallBuffersGrowByReallocAndKeepTheirBytes() {
        var buffer = DeviceLinkBuffers.allocator.buffer(capacity: 16)
        for round in 0..<200 {
            buffer.writeBytes([UInt8(truncatingIfNeeded: round)])
            buffer.writeBytes([UInt8](repeating: 9, count: round))  // grows by realloc below 16 KiB
        }
        var reader = buffer
        for round in 0..<200 {
            #expect(reader.readInteger(as: UInt8.self) == UInt8(truncatingIfNeeded: round))
            #expect(reader.readBytes(length: round) == [UInt8](repeating: 9, count: round))
        }
    }

    /// The `VmFlags` of the mapping holding `address`, from `/proc/self/smaps`.
    private func mappingFlags(containing address: UnsafeRawPointer) throws -> [Substring] {
        let target = UInt(bitPattern: Int(bitPattern: address))
        // Read to the end, not by the file's size, which /proc reports as 0.
        let smaps = String(decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps")).readToEnd() ?? Data(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), fields.count >= 5 {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= target && target < bounds[1]
            } else if inside, line.hasPrefix("VmFlags:") {
                return Array(fields.dropFirst())
            }
        }
        throw MappingNotFound()
    }

    private struct MappingNotFound: Error {}

    /// Which pages of `[start, start + length)` are in memory, by `mincore(2)`.
    private func residentPages(_ start: UnsafeMutableRawPointer, length: Int) throws -> [Bool] {
        let pages = (length + pageSize - 1) / pageSize
        var vector = [UInt8](repeating: 0, count: pages)
        let result = vector.withUnsafeMutableBufferPointer { mincore(start, length, $0.baseAddress) }
        try #require(result == 0, "mincore failed: errno \(errno)")
        return vector.map { $0 & 1 == 1 }
    }
}
