public import struct Foundation.Data

/// PEM text as Herald writes it to a file: ending in a newline after `-----END …-----`.
///
/// Without it, the usual way to make one file of a certificate and its key, `cat cert.pem key.pem > apns.pem`,
/// glues `-----END CERTIFICATE-----` to `-----BEGIN PRIVATE KEY-----` on one line, which OpenSSL and
/// Python's `ssl` refuse.
///
/// ```swift
/// try PEMFile.contents(key.pemRepresentation).write(to: url)
/// ```
public enum PEMFile {
    /// `pem` with exactly one newline at its end.
    public static func contents(_ pem: String) -> Data {
        var text = Substring(pem)
        while text.last?.isNewline == true { text = text.dropLast() }
        return Data((text + "\n").utf8)
    }
}
