import Foundation

/// What a binary property list (`bplist00`) holds, read from its offset table without building objects.
///
/// swift-corelibs-foundation's `PropertyListSerialization` crashes (SEGV while bridging an `NSSet` to Swift) on a
/// binary property list holding a set, a type XML property lists cannot even write and no Info.plist or strings
/// file has. Bundle files are read before anything else refuses them, so they are checked here first (found by
/// Fuzz/FuzzInfoPlist; docs/reliability.md).
enum BinaryPropertyList {
    /// Whether `data` is a binary property list with a set among its objects. A file that is not a well-formed
    /// binary property list answers false: `PropertyListSerialization` then says what is wrong with it.
    static func holdsASet(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        let trailerLength = 32
        guard bytes.count >= 8 + trailerLength, bytes.starts(with: Array("bplist0".utf8)) else { return false }
        let trailer = bytes.count - trailerLength
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize),
            let objectCount = integer(bytes, at: trailer + 8, size: 8),
            let tableOffset = integer(bytes, at: trailer + 24, size: 8),
            objectCount <= trailer, tableOffset <= trailer,
            tableOffset + objectCount * offsetSize <= trailer
        else { return false }
        for object in 0..<objectCount {
            guard let offset = integer(bytes, at: tableOffset + object * offsetSize, size: offsetSize), offset < trailer else {
                continue
            }
            if bytes[offset] >> 4 == 0xC { return true }  // the marker of a set (0xCn)
        }
        return false
    }

    /// The big-endian unsigned integer of `size` bytes at `offset`, if it fits an Int.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] {
            guard value >> 56 == 0 else { return nil }
            value = value << 8 | UInt64(byte)
        }
        return value <= UInt64(Int.max >> 4) ? Int(value) : nil
    }
}
