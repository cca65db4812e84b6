import Foundation
import HeraldGateway
import HeraldWire
import NIOCore
import NIOWebSocket
import Testing

/// The device link's rules without sockets: hello first, one request at a time in order, pings, closing.
@Suite struct DeviceLinkStateMachineTests {
    typealias Machine = DeviceLinkStateMachine
    typealias Closing = DeviceLinkStateMachine.Closing

    private let hello = DeviceLinkMessage.Hello(publicKey: "key", signature: "signature")
    private let uniqueID = UUID()

    private func machine() -> Machine {
        Machine(helloTimeout: .seconds(10), pingInterval: .seconds(30))
    }

    /// A machine whose device has said hello and been let in.
    private func linkedMachine() -> Machine {
        var machine = machine()
        machine.received(.success(.hello(hello)))
        _ = machine.nextAction()
        machine.authenticated()
        return machine
    }

    @Test func theFirstMessageMustBeHello() {
        var good = machine()
        #expect(good.timer == .hello)
        good.received(.success(.hello(hello)))
        #expect(good.nextAction() == .authenticate(hello))
        #expect(good.phase == .authenticating && good.isBusy && good.timer == .ping)

        var bad = machine()
        bad.received(.success(.register(topic: "com.example.app")))
        #expect(bad.nextAction() == .closeNow(Closing(.policyViolation, "the first message must be hello", .protocolError)))
        #expect(bad.phase == .closed && bad.timer == .none)
    }

    @Test func noHelloInTimeClosesWith1008() {
        var machine = Machine(helloTimeout: .milliseconds(200), pingInterval: .seconds(30))
        #expect(machine.timerFired() == .close(Closing(.policyViolation, "no hello within 200 ms", .helloTimeout)))
        var standard = self.machine()
        #expect(standard.timerFired() == .close(Closing(.policyViolation, "no hello within 10 s", .helloTimeout)))
    }

    @Test func messagesWaitForTheHelloAndThenComeInOrder() {
        var machine = machine()
        machine.received(.success(.hello(hello)))
        machine.received(.success(.register(topic: "a")))
        machine.received(.success(.ack(uniqueID: uniqueID)))
        #expect(machine.nextAction() == .authenticate(hello))
        #expect(machine.nextAction() == nil)  // the register waits for the hello to be checked
        machine.authenticated()
        #expect(machine.phase == .linked && !machine.isBusy)
        #expect(machine.nextAction() == .answer(.register(topic: "a")))
        #expect(machine.nextAction() == nil)  // the ack waits for the register's answer
        machine.requestFinished()
        #expect(machine.nextAction() == .acknowledge(uniqueID))
        #expect(machine.nextAction() == nil)
    }

    @Test func aBadMessageClosesOnlyWhenItsTurnComes() {
        var machine = linkedMachine()
        let malformed = Closing(.dataInconsistentWithMessage, "malformed message: not JSON", .invalidMessage)
        machine.received(.success(.unregister(topic: "a")))
        machine.received(.failure(malformed))
        #expect(machine.nextAction() == .answer(.unregister(topic: "a")))
        #expect(machine.nextAction() == nil)
        machine.requestFinished()
        #expect(machine.nextAction() == .closeNow(malformed))
        machine.received(.success(.ack(uniqueID: uniqueID)))  // ignored once closing
        #expect(machine.nextAction() == nil)
    }

    @Test(arguments: [
        DeviceLinkMessage.welcome(deviceID: "me"), .hello(DeviceLinkMessage.Hello(publicKey: "k", signature: "s")),
        .error(reason: "r", message: "m"),
    ])
    func messagesOnlyTheGatewaySendsCloseWith1002(message: DeviceLinkMessage) {
        var machine = linkedMachine()
        machine.received(.success(message))
        #expect(machine.nextAction() == .closeNow(Closing(.protocolError, "a device may not send \(message.typeName) here", .protocolError)))
    }

    @Test func aFailedHelloOrRequestCloses() {
        var machine = machine()
        machine.received(.success(.hello(hello)))
        _ = machine.nextAction()
        let refused = Closing(.policyViolation, "authentication failed: bad public key or signature", .authenticationFailed)
        #expect(machine.failed(refused) == .close(refused))
        #expect(!machine.isBusy && machine.phase == .closing)
    }

    @Test func aSilentDeviceIsClosedAtTheSecondPing() {
        var machine = linkedMachine()
        #expect(!machine.isAwaitingPong)
        #expect(machine.timerFired() == .sendPing)
        #expect(machine.isAwaitingPong)
        machine.heard()
        #expect(!machine.isAwaitingPong)  // the pong answers the ping: none is outstanding
        #expect(machine.timerFired() == .sendPing)
        #expect(machine.isAwaitingPong)
        #expect(machine.timerFired() == .closeNow(Closing(.goingAway, "no pong within 30 s", .noPong)))
        #expect(machine.phase == .closed && machine.timer == .none)
    }

    @Test func silenceDuringARequestIsNotDeath() {
        var machine = linkedMachine()
        machine.received(.success(.register(topic: "a")))
        _ = machine.nextAction()
        #expect(machine.timerFired() == .sendPing)
        #expect(machine.timerFired() == .sendPing)  // reads are held while the request runs
        machine.requestFinished()
        #expect(machine.timerFired() == .sendPing)  // the pong may still wait in the socket
        #expect(machine.timerFired() == .closeNow(Closing(.goingAway, "no pong within 30 s", .noPong)))
    }

    @Test func theGatewaysCloseWaitsForTheDevicesThenTimesOut() {
        var answered = linkedMachine()
        #expect(answered.closeRequested(.replaced) == .close(.replaced))
        #expect(answered.closeRequested(.shutdown) == nil)  // the first reason counts
        #expect(answered.closeReceived(code: .normalClosure) == .closeNow(nil))
        #expect(answered.phase == .closed)

        var silent = linkedMachine()
        _ = silent.closeRequested(.shutdown)
        #expect(silent.timer == .closeTimeout)
        #expect(silent.timerFired() == .closeNow(nil))
    }

    @Test func theDevicesCloseIsEchoed() {
        var machine = linkedMachine()
        machine.received(.success(.register(topic: "a")))
        #expect(machine.closeReceived(code: .goingAway) == .echoClose(.goingAway))
        #expect(machine.nextAction() == nil)
        var bare = self.machine()
        #expect(bare.closeReceived(code: nil) == .echoClose(.normalClosure))
    }

    @Test func aBrokenConnectionClosesAtOnce() {
        var machine = linkedMachine()
        let tooBig = Closing(.messageTooLarge, "a message over 8192 bytes", .messageTooLarge)
        #expect(machine.broken(tooBig) == .closeNow(tooBig))
        #expect(machine.broken(tooBig) == nil)
        machine.connectionClosed()
        #expect(machine.phase == .closed)
    }
}
