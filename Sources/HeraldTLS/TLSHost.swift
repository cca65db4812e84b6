import Foundation

/// A host as a TLS client must treat it. A name is sent in SNI and matched against the certificate's DNS names;
/// an IPv4 or IPv6 address is never sent in SNI (RFC 6066 §3; NIOSSL refuses it) and is matched against the
/// certificate's IP addresses instead.
///
/// ```swift
/// let host = TLSHost("[::1]")       // as a URL writes it
/// NIOSSLClientHandler(context: context, serverHostname: host.serverHostname)   // nil: no SNI, IP SANs checked
/// ```
package struct TLSHost: Sendable, Hashable, CustomStringConvertible {
    /// The host without the brackets a URL puts around an IPv6 address: what to connect to.
    package let name: String
    /// True for an IPv4 or IPv6 literal.
    package let isAddress: Bool

    package init(_ host: String) {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.name = name
        isAddress = Self.addressBytes(name) != nil
    }

    /// For `NIOSSLClientHandler`: the name, or nil for an address, whose certificate check then uses the IP
    /// address connected to.
    package var serverHostname: String? { isAddress ? nil : name }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address written as text (brackets allowed); nil for a name.
    package static func addressBytes(_ text: String) -> [UInt8]? {
        let text = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// An address's 4 or 16 bytes as text, IPv6 in its shortest form (`::1`).
    package static func addressText(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard bytes.withUnsafeBytes({ inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The host as a URL writes it (IPv6 in brackets).
    package var description: String { isAddress && name.contains(":") ? "[\(name)]" : name }
}
