import Foundation
import FuzzSupport
import HeraldWire

// Device-link messages as either end reads them: any text is a message or a DecodingError, and a message read,
// written back and read again is the same message.

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)
    guard let message = try? DeviceLinkMessage.decode(text) else { return 0 }
    let encoded = message.encoded()
    guard let again = try? DeviceLinkMessage.decode(encoded) else {
        FuzzDriver.fail("a \(message.typeName) message written back does not read")
    }
    if again != message { FuzzDriver.fail("a \(message.typeName) message written and read back differs") }
    if String(decoding: message.encodedUTF8(), as: UTF8.self) != encoded {
        FuzzDriver.fail("encodedUTF8() and encoded() differ for a \(message.typeName) message")
    }
    return 0
}

exit(FuzzDriver.run(testOneInput))
