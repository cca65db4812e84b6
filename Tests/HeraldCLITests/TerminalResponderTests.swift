import Testing
import UserNotifications

@testable import HeraldCLI

/// The daemon terminal's answer line.
@Suite struct TerminalResponderTests {
    @Test func anIdentifierAloneOpensAndTheRestIsActionAndReply() {
        #expect(TerminalResponder.parse("   ") == nil)
        #expect(TerminalResponder.parse("m1")?.action == "open")
        let dismiss = TerminalResponder.parse("m1 dismiss")
        #expect(dismiss?.identifier == "m1" && dismiss?.action == "dismiss" && dismiss?.text == nil)
        let reply = TerminalResponder.parse("m1 reply On my way, 10 min")
        #expect(reply?.action == "reply" && reply?.text == "On my way, 10 min")
    }
}
