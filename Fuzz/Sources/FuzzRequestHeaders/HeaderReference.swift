/// The header blocks where RequestHeaderBlock and NIOHTTP2's validation differ by design (docs/reliability.md).
enum HeaderReference {
    static func isDocumentedDifference(_ fields: [(String, String)], isTrailers: Bool) -> Bool {
        false
    }
}
