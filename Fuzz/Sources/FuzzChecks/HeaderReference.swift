/// The header blocks where RequestHeaderBlock and NIOHTTP2's validation differ by design (docs/reliability.md).
enum HeaderReference {
    /// Whether RequestHeaderBlock may judge `fields` otherwise than NIOHTTP2, by a choice:
    /// - `te` in trailers: RequestHeaderBlock holds trailers to a request's rule, `te` only as `trailers`
    ///   (RFC 9113 §8.2.2); NIOHTTP2 checks `te` in request header blocks only.
    static func isDocumentedDifference(_ fields: [(String, String)], isTrailers: Bool) -> Bool {
        isTrailers && fields.contains { name, value in name == "te" && value != "trailers" }
    }
}
