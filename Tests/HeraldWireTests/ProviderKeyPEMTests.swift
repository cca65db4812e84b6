import Crypto
import HeraldWire
import Testing

/// What the CLI and the console both check of a key to register: its ids, its topics, its PEM.
@Suite struct ProviderKeyPEMTests {
    @Test func aP8OrItsPublicKeyGivesThePublicKey() throws {
        let key = P256.Signing.PrivateKey()
        let fromPrivate = try #require(ProviderKeyPEM.publicKey(in: "\n " + key.pemRepresentation + "\n\n"))
        #expect(fromPrivate.form == .privateKey && fromPrivate.key.rawRepresentation == key.publicKey.rawRepresentation)
        let fromPublic = try #require(ProviderKeyPEM.publicKey(in: key.publicKey.pemRepresentation))
        #expect(fromPublic.form == .publicKey && fromPublic.key.rawRepresentation == key.publicKey.rawRepresentation)
    }

    @Test(arguments: [
        "", "not a key", P384.Signing.PrivateKey().pemRepresentation, P384.Signing.PrivateKey().publicKey.pemRepresentation,
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
    ])
    func anythingElseIsNoKey(pem: String) {
        #expect(ProviderKeyPEM.publicKey(in: pem) == nil)
    }

    @Test func teamAndKeyIDsAreTenLettersOrDigits() {
        #expect(AppleID.isValid("TEAM123456") && AppleID.isValid("abcdef1234"))
        for bad in ["", "TEAM12345", "TEAM1234567", "TEAM-12345", "TEAM 12345", "TEAMÄ12345"] { #expect(!AppleID.isValid(bad), "\(bad)") }
        #expect(
            AppleID.problem("TEAM", name: "teamID", example: "TEAM123456") == #"teamID must be 10 letters or digits, like TEAM123456; got "TEAM""#)
        #expect(AppleID.problem("TEAM123456", name: "teamID", example: "TEAM123456") == nil)
    }

    @Test func aBundleIDIsAValidTopicThatIsNotEmpty() {
        #expect(TopicSyntax.bundleIDProblem("com.example.app") == nil)
        for bad in ["", "com example", ".com.example", "com.example.", "com/example"] {
            #expect(TopicSyntax.bundleIDProblem(bad) == "\"\(bad)\" is not a bundle id; use one like com.example.app")
        }
    }

    @Test func aTopicEndingInAPushTypesSuffixIsNoticed() {
        #expect(PushType.suffixed("com.example.app.voip") == .voip)
        #expect(PushType.suffixed("com.example.app.voip-ptt") == .pushToTalk)
        #expect(PushType.suffixed("com.example.app.push-type.liveactivity") == .liveActivity)
        #expect(PushType.suffixed("com.example.app") == nil)
        #expect(PushType.suffixed(".voip") == nil)
    }
}
