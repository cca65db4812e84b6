/// A device token: the address of one app on one device, written as lowercase hex.
///
/// Apple's tokens are 32 bytes, but Apple says not to hard-code the size, so any even-length hex string
/// of 8 to 200 bytes parses. A token is an address, never a credential.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// Lowercase hex.
    public let hex: String

    /// Parses hex in either case; nil when the text is not an even number of hex digits of a plausible length.
    public init?(hex text: some StringProtocol) {
        let lowercased =
            text.utf8.withContiguousStorageIfAvailable(Self.lowercasedHex)
            ?? Array(text.utf8).withUnsafeBufferPointer(Self.lowercasedHex)
        guard let lowercased else { return nil }
        hex = lowercased
    }

    /// `bytes` in lowercase when they are an even number of hex digits of a plausible length.
    ///
    /// One pass that checks and lowercases every byte without branching (the compiler makes vector code of it).
    private static func lowercasedHex(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count >= 16, bytes.count <= 400, bytes.count.isMultiple(of: 2) else { return nil }
        var notHex: UInt8 = 0
        let lowercased = String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for index in bytes.indices {
                let byte = bytes[index]
                // Setting bit 5 lowercases A–F and leaves the digits as they are.
                let lower = byte | 0x20
                let isDigit: UInt8 = byte &- UInt8(ascii: "0") <= 9 ? 1 : 0
                let isLetter: UInt8 = lower &- UInt8(ascii: "a") <= 5 ? 1 : 0
                notHex |= (isDigit | isLetter) ^ 1
                buffer[index] = lower
            }
            return bytes.count
        }
        return notHex == 0 ? lowercased : nil
    }

    /// A fresh random 32-byte token.
    public static func random() -> DeviceToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return DeviceToken(bytes: bytes)
    }

    public init(bytes: [UInt8]) {
        self.hex = bytes.hexString
    }

    /// A shortened form safe for logs: the first 8 hex digits and an ellipsis.
    public var redacted: String { String(hex.prefix(8)) + "…" }

    public var description: String { redacted }
}

extension UInt8 {
    /// The value of this ASCII hex digit (either case), or nil.
    var hexValue: UInt8? {
        switch self {
        case 0x30...0x39: self - 0x30
        case 0x41...0x46: self - 0x41 + 10
        case 0x61...0x66: self - 0x61 + 10
        default: nil
        }
    }
}

extension Sequence<UInt8> {
    /// Lowercase hex digits for these bytes.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
