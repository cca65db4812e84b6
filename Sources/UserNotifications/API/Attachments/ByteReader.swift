import Foundation

/// Random access to the bytes of an attachment's file, for sniffing and parsing without reading it whole.
package protocol ByteReader {
    /// The number of bytes.
    var size: UInt64 { get }
    /// Up to `count` bytes from `offset`; fewer at the end, none past it.
    func bytes(at offset: UInt64, count: Int) throws(UNError) -> [UInt8]
}

/// A `ByteReader` over bytes in memory.
package struct MemoryByteReader: ByteReader {
    private let storage: [UInt8]

    package init(_ bytes: [UInt8]) {
        storage = bytes
    }

    package var size: UInt64 { UInt64(storage.count) }

    package func bytes(at offset: UInt64, count: Int) -> [UInt8] {
        guard offset < size, count > 0 else { return [] }
        let start = Int(offset)
        return Array(storage[start..<min(storage.count, start + count)])
    }
}

/// A `ByteReader` over an open file; close it with `close()`.
struct FileByteReader: ByteReader {
    private let handle: FileHandle
    let size: UInt64

    /// Opens the file at `url`; throws `attachmentInvalidURL` when it cannot be read.
    init(url: URL) throws(UNError) {
        do {
            handle = try FileHandle(forReadingFrom: url)
            size = try handle.seekToEnd()
        } catch {
            throw UNError(.attachmentInvalidURL, "cannot read the attachment file \(url.path)", underlying: error)
        }
    }

    func bytes(at offset: UInt64, count: Int) throws(UNError) -> [UInt8] {
        guard offset < size, count > 0 else { return [] }
        do {
            try handle.seek(toOffset: offset)
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw UNError(.attachmentCorrupt, "cannot read the attachment file at offset \(offset)", underlying: error)
        }
    }

    func close() {
        try? handle.close()
    }
}

/// Reads a `ByteReader` forward in chunks, for formats walked block by block (GIF).
struct ByteCursor {
    private let reader: any ByteReader
    private(set) var offset: UInt64
    private var buffer: [UInt8] = []
    private var bufferStart: UInt64 = 0
    private let what: String

    /// A cursor at `offset`; `what` names the format in errors ("GIF image").
    init(_ reader: any ByteReader, at offset: UInt64, what: String) {
        self.reader = reader
        self.offset = offset
        self.what = what
    }

    /// The next byte; throws `attachmentCorrupt` at the end of the file.
    mutating func byte() throws(UNError) -> UInt8 {
        let index = offset &- bufferStart
        if offset < bufferStart || index >= UInt64(buffer.count) {
            buffer = try reader.bytes(at: offset, count: 64 * 1024)
            bufferStart = offset
            guard !buffer.isEmpty else { throw truncated() }
        }
        let value = buffer[Int(offset - bufferStart)]
        offset += 1
        return value
    }

    /// Skips `count` bytes; throws `attachmentCorrupt` when that passes the end of the file.
    mutating func skip(_ count: UInt64) throws(UNError) {
        guard offset + count <= reader.size else { throw truncated() }
        offset += count
    }

    private func truncated() -> UNError {
        UNError(.attachmentCorrupt, "the \(what) ends early: the file is truncated")
    }
}
