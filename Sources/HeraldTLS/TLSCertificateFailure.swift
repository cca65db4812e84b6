import NIOSSL

/// A server certificate a Herald client refused, said as a person can act on it: not signed by the CA the
/// client trusts (or expired), or made for other names than the one connected to.
///
/// ``CertificateFailureHandler`` raises it in place of BoringSSL's text. No retry can fix it.
package struct TLSCertificateFailure: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// The chain does not lead to a trusted CA, or a certificate in it has expired.
        case untrusted
        /// The certificate is valid but names other hosts (its DNS names and IP addresses, or its common name).
        case nameMismatch(certificateNames: [String])
    }

    package var kind: Kind
    /// The host the client connected to.
    package var host: TLSHost
    /// The CA file the client trusts; nil when it trusts the system's CAs.
    package var trustedCA: String?

    package init(_ kind: Kind, host: TLSHost, trustedCA: String?) {
        self.kind = kind
        self.host = host
        self.trustedCA = trustedCA
    }

    /// What is wrong.
    package var problem: String {
        switch kind {
        case .untrusted:
            "the gateway's certificate is not signed by the CA you trust (\(trustedCA ?? "the system's CAs")), or it has expired"
        case .nameMismatch(let names):
            "the gateway's certificate is for \(names.isEmpty ? "no host name or address" : names.joined(separator: ", ")), not \(host.name)"
        }
    }

    /// What to do about it.
    package var remedy: String {
        switch kind {
        case .untrusted where trustedCA == nil && host.name.hasSuffix(".push.apple.com"):
            return "Apple's servers are trusted through the system's CA certificates: install them (Debian: apt-get install ca-certificates)"
        case .untrusted:
            return "pass --ca with that gateway's own CA, the file DATA_DIR/tls/ca.pem of the data directory it serves"
        case .nameMismatch:
            let flag = host.isAddress ? "--host \(host.name) (or --host 0.0.0.0)" : "--host \(host.name)"
            return "connect by one of those names, or have the certificate name \(host.name): a gateway on its local CA "
                + "adds the names and addresses it serves on when started with \(flag); for a certificate of your own, "
                + "`herald certs create --host \(host.name)` issues one for `herald serve --tls-cert`"
        }
    }

    package var description: String { "\(problem); \(remedy)" }

    /// The failure `error` is, when it is one of certificate trust or names; `peerNames` reads the certificate's
    /// names while the connection still holds it.
    package init?(_ error: any Error, host: TLSHost, trustedCA: String?, peerNames: () -> [String]) {
        if let error = error as? TLSCertificateFailure {
            self = error
        } else if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            self.init(.nameMismatch(certificateNames: peerNames()), host: host, trustedCA: trustedCA)
        } else if case NIOSSLError.handshakeFailed(.sslError(let stack)) = error,
            stack.contains(where: { "\($0)".contains("CERTIFICATE_VERIFY_FAILED") })
        {
            self.init(.untrusted, host: host, trustedCA: trustedCA)
        } else {
            return nil
        }
    }
}
