package import Foundation

extension UUID {
    /// The 16 bytes of the UUID, the compact form the store indexes.
    package var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    package init?(bytes: Data) {
        guard bytes.count == 16 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
