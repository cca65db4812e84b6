import Foundation

/// Binary property lists written byte by byte, for what PropertyListSerialization cannot write.
enum BinaryPropertyListSample {
    /// `{"CFBundleIdentifier": <set of "a">}`: four objects (a dictionary, a string, a set, a string), their
    /// one-byte offsets, and the 32-byte trailer.
    static let dictionaryWithASet: Data = {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        let objects: [[UInt8]] = [
            [0xD1, 1, 2], [0x5F, 0x10, 18] + Array("CFBundleIdentifier".utf8), [0xC1, 3], [0x51] + Array("a".utf8),
        ]
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let tableOffset = UInt64(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [UInt64(objects.count), 0, tableOffset] {
            bytes += withUnsafeBytes(of: value.bigEndian, Array.init)
        }
        return Data(bytes)
    }()
}
