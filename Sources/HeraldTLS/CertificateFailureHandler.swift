import Foundation
package import NIOCore
package import NIOSSL
import NIOTLS
import SwiftASN1
import X509

/// Goes right after `NIOSSLClientHandler` and passes its certificate errors on as ``TLSCertificateFailure``
/// (with the names the server's certificate carries, read while the connection still holds it); every other error
/// and event passes unchanged. It leaves the pipeline once the handshake succeeds.
package final class CertificateFailureHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = NIOAny

    private let host: TLSHost
    private let trustedCA: String?

    package init(host: TLSHost, trustedCA: String?) {
        self.host = host
        self.trustedCA = trustedCA
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure = TLSCertificateFailure(error, host: host, trustedCA: trustedCA) {
            Self.names(of: try? context.pipeline.syncOperations.nioSSL_peerCertificate())
        }
        context.fireErrorCaught(failure ?? error)
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case .handshakeCompleted? = event as? TLSUserEvent {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    /// The certificate's DNS names and IP addresses, else its common name.
    static func names(of certificate: NIOSSLCertificate?) -> [String] {
        guard let der = try? certificate?.toDERBytes(), let parsed = try? Certificate(derEncoded: der) else { return [] }
        let alternatives = (try? parsed.extensions.subjectAlternativeNames).flatMap { $0 }.map(Array.init) ?? []
        let names = alternatives.compactMap { name -> String? in
            switch name {
            case .dnsName(let dns): dns
            case .ipAddress(let bytes): TLSHost.addressText(Array(bytes.bytes))
            default: nil
            }
        }
        if !names.isEmpty { return names }
        return parsed.subject.compactMap { $0.first { $0.type == .RDNAttributeType.commonName } }.map { "\($0.value)" }
    }
}

extension ChannelPipeline.SynchronousOperations {
    /// TLS as every Herald client adds it: `NIOSSLClientHandler` with SNI for a host name only (an address is
    /// checked against the certificate's IP addresses), then ``CertificateFailureHandler``.
    ///
    /// - Parameter trustedCA: The CA file `context` trusts (nil: the system's), named when a certificate is refused.
    package func addTLSClientHandlers(context: NIOSSLContext, host: TLSHost, trustedCA: String?) throws {
        try addHandler(NIOSSLClientHandler(context: context, serverHostname: host.serverHostname))
        try addHandler(CertificateFailureHandler(host: host, trustedCA: trustedCA))
    }
}
