import Crypto
import Foundation
import FuzzSupport
import HeraldWire

// Provider tokens as the gateway reads them (TokenVerifier: parse, then verify, then the age checks): a forged or
// malformed token is refused with InvalidProviderToken and never crashes; the age of any parsed token is a number.

/// A fixed key, so that runs are reproducible; signatures made by others never verify with it.
let key = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)
    do throws(Rejection) {
        let token = try ProviderToken.parse(text)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = token.isExpired(at: now)
        _ = token.isIssuedInTheFuture(at: now)
        _ = token.ageInSeconds(at: now)
        do throws(Rejection) {
            try token.verify(with: key.publicKey)
            FuzzDriver.fail("a token not signed with the key verifies")
        } catch {
            if error.reason != .invalidProviderToken { FuzzDriver.fail("verify refused with \(error.reason)") }
        }
    } catch {
        if error.reason != .invalidProviderToken { FuzzDriver.fail("parse refused with \(error.reason)") }
    }
    // The same claims signed with the key verify.
    if let claims = try? JSONValue.parse(Data(text.utf8)), case .object(let members) = claims,
        let teamID = members["iss"]?.stringValue, let keyID = members["kid"]?.stringValue, !teamID.isEmpty, !keyID.isEmpty
    {
        let issuedAt = Date(timeIntervalSince1970: 1_800_000_000)
        guard let jwt = try? ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: issuedAt, key: key),
            let token = try? ProviderToken.parse(jwt), token.teamID == teamID, token.keyID == keyID,
            (try? token.verify(with: key.publicKey)) != nil
        else { FuzzDriver.fail("a token signed with the key does not read back or verify") }
    }
    return 0
}

exit(FuzzDriver.run(testOneInput))
