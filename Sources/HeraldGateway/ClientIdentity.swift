import Foundation
public import HeraldWire
import SwiftASN1
import X509

/// What a client certificate says about the provider: the topics it may push to and its environment.
public struct ClientIdentity: Sendable, Hashable {
    public var topics: [String]
    /// nil when the certificate carries neither of Apple's environment extensions.
    public var environment: APNsEnvironment?

    static let userIDOID: ASN1ObjectIdentifier = [0, 9, 2342, 19200300, 100, 1, 1]
    /// Apple's "development" push certificate extension.
    static let developmentOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 1]
    /// Apple's "production" push certificate extension.
    static let productionOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 2]

    public init(topics: [String], environment: APNsEnvironment?) {
        self.topics = topics
        self.environment = environment
    }

    /// Reads the identity from a DER certificate; nil topics list when the subject has no UID.
    init(derEncoded bytes: [UInt8]) throws {
        let certificate = try Certificate(derEncoded: bytes)
        var topics: [String] = []
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == Self.userIDOID {
                topics.append(String(describing: attribute.value))
            }
        }
        self.topics = topics
        if certificate.extensions[oid: Self.productionOID] != nil {
            environment = .production
        } else if certificate.extensions[oid: Self.developmentOID] != nil {
            environment = .development
        } else {
            environment = nil
        }
    }
}
