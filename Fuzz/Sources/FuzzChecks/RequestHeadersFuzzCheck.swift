import NIOHPACK

@testable import NIOHTTP2

/// Differential: the gateway's RequestHeaderBlock (compiled here from its own source file) against swift-nio-http2's
/// header block validation (the reference for RFC 9113 §8's field rules). The input is a header list (HeaderInput);
/// any block one accepts and the other refuses is a bug, or a choice docs/reliability.md lists (HeaderReference).
package enum RequestHeadersFuzzCheck {
    package static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        let input = HeaderInput(bytes)
        let headers = HPACKHeaders(input.fields)
        let fields = input.fields.map { (name: $0.0, value: $0.1) }
        let ours: Bool
        let reference: Bool
        if input.isTrailers {
            ours = RequestHeaderBlock.isWellFormedTrailers(fields)
            reference = (try? headers.validateTrailersBlock()) != nil
        } else {
            ours = RequestHeaderBlock.isWellFormed(fields)
            reference = (try? headers.validateRequestBlock(supportsExtendedConnect: false)) != nil
        }
        if ours != reference, !HeaderReference.isDocumentedDifference(input.fields, isTrailers: input.isTrailers) {
            let kind = input.isTrailers ? "trailers" : "request block"
            throw FuzzFinding("\(kind) \(input.fields): RequestHeaderBlock says \(ours), NIOHTTP2 says \(reference)")
        }
    }
}
