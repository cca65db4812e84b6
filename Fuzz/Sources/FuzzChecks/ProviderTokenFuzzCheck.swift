import Crypto
import Foundation
import HeraldWire

/// Provider tokens as the gateway reads them (TokenVerifier: parse, then verify, then the age checks): a forged or
/// malformed token is refused with InvalidProviderToken and never crashes; the age of any parsed token is a number.
package enum ProviderTokenFuzzCheck {
    /// A fixed key, so that runs are reproducible; signatures made by others never verify with it.
    private static let key = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))

    package static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let text = String(decoding: input, as: UTF8.self)
        var parsed: ProviderToken?
        if let error = refusal({ () throws(Rejection) in parsed = try ProviderToken.parse(text) }) {
            if error.reason != .invalidProviderToken { throw FuzzFinding("parse refused with \(error.reason)") }
        }
        if let token = parsed {
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            _ = token.isExpired(at: now)
            _ = token.isIssuedInTheFuture(at: now)
            _ = token.ageInSeconds(at: now)
            guard let error = refusal({ () throws(Rejection) in try token.verify(with: key.publicKey) }) else {
                throw FuzzFinding("a token not signed with the key verifies")
            }
            if error.reason != .invalidProviderToken { throw FuzzFinding("verify refused with \(error.reason)") }
        }
        // The same claims signed with the key verify.
        if let claims = try? JSONValue.parse(Data(text.utf8)), case .object(let members) = claims,
            let teamID = members["iss"]?.stringValue, let keyID = members["kid"]?.stringValue, !teamID.isEmpty, !keyID.isEmpty
        {
            let issuedAt = Date(timeIntervalSince1970: 1_800_000_000)
            guard let jwt = try? ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: issuedAt, key: key),
                let token = try? ProviderToken.parse(jwt), token.teamID == teamID, token.keyID == keyID,
                (try? token.verify(with: key.publicKey)) != nil
            else { throw FuzzFinding("a token signed with the key does not read back or verify") }
        }
    }
}
