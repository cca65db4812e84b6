import Foundation
import FuzzSupport
import NIOHPACK

@testable import NIOHTTP2

// Differential: the gateway's RequestHeaderBlock (compiled here from its own source file) against swift-nio-http2's
// header block validation, which the provider API switches off for it. The input is a header list (HeaderInput);
// any block one accepts and the other refuses is a bug, or a choice docs/reliability.md lists (HeaderReference).

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = HeaderInput(FuzzDriver.bytes(data, size))
    let headers = HPACKHeaders(input.fields)
    let ours: Bool
    let reference: Bool
    if input.isTrailers {
        ours = RequestHeaderBlock.isWellFormedTrailers(headers)
        reference = (try? headers.validateTrailersBlock()) != nil
    } else {
        ours = RequestHeaderBlock.isWellFormed(headers)
        reference = (try? headers.validateRequestBlock(supportsExtendedConnect: false)) != nil
    }
    if ours != reference, !HeaderReference.isDocumentedDifference(input.fields, isTrailers: input.isTrailers) {
        let kind = input.isTrailers ? "trailers" : "request block"
        FuzzDriver.fail("\(kind) \(input.fields): RequestHeaderBlock says \(ours), NIOHTTP2 says \(reference)")
    }
    return 0
}

exit(FuzzDriver.run(testOneInput))
