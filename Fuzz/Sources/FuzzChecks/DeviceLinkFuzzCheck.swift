import HeraldWire

/// Device-link messages as either end reads them: any text is a message or a DecodingError, and a message read,
/// written back and read again is the same message.
package enum DeviceLinkFuzzCheck {
    package static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let text = String(decoding: input, as: UTF8.self)
        guard let message = try? DeviceLinkMessage.decode(text) else { return }
        let encoded = message.encoded()
        guard let again = try? DeviceLinkMessage.decode(encoded) else {
            throw FuzzFinding("a \(message.typeName) message written back does not read")
        }
        if again != message { throw FuzzFinding("a \(message.typeName) message written and read back differs") }
        if String(decoding: message.encodedUTF8(), as: UTF8.self) != encoded {
            throw FuzzFinding("encodedUTF8() and encoded() differ for a \(message.typeName) message")
        }
    }
}
