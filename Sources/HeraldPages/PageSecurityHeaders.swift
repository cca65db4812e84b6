import HTTPTypes
public import Hummingbird

/// Headers on every answer of a page server: its Content-Security-Policy, no MIME sniffing, no framing, and its
/// referrer policy.
public struct PageSecurityHeaders: RouterMiddleware {
    public typealias Context = BasicRequestContext
    private static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    private static let frameOptions = HTTPField.Name("X-Frame-Options")!

    public let contentSecurityPolicy: String
    public let referrerPolicy: String

    public init(contentSecurityPolicy: String, referrerPolicy: String) {
        self.contentSecurityPolicy = contentSecurityPolicy
        self.referrerPolicy = referrerPolicy
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = referrerPolicy
        response.headers[Self.frameOptions] = "DENY"
        return response
    }
}
