import HeraldWire
import NIOCore
import Testing

@testable import HeraldClient

/// A client connection's rules without sockets: the stream limit, stream ids, draining and liveness.
@Suite struct APNsStreamStateMachineTests {
    typealias Machine = APNsStreamHandler.StateMachine

    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    private func machine() -> Machine {
        Machine(pingInterval: .seconds(60), pingTimeout: .seconds(10), now: start)
    }

    /// One stream until a request is accepted, then the server's limit; one again after a 403.
    @Test func oneStreamUntilAcceptedThenTheServersLimit() {
        var machine = machine()
        #expect(machine.limit == 1)
        machine.settingsReceived(maximumConcurrentStreams: 1)
        #expect(machine.canStart(inFlight: 0) && !machine.canStart(inFlight: 1))
        machine.settingsReceived(maximumConcurrentStreams: 1000)
        #expect(machine.limit == 1)  // still not accepted
        machine.answered(status: 400)  // any answer but 403 shows the credentials work
        #expect(machine.limit == 1000)
        #expect(machine.canStart(inFlight: 999) && !machine.canStart(inFlight: 1000))
        machine.answered(status: 403)
        #expect(machine.limit == 1)
        machine.answered(status: 200)
        #expect(machine.limit == 1000)
    }

    @Test func settingsWithoutALimitMeanAThousandAndALaterLimitWins() {
        var silent = machine()
        silent.settingsReceived(maximumConcurrentStreams: nil)
        silent.answered(status: 200)
        #expect(silent.limit == 1000)
        silent.settingsReceived(maximumConcurrentStreams: nil)
        #expect(silent.limit == 1000)
        silent.settingsReceived(maximumConcurrentStreams: 5)
        #expect(silent.limit == 5)
        silent.settingsReceived(maximumConcurrentStreams: -3)
        #expect(silent.limit == 0)
    }

    @Test func streamIDsAreOddAndRunOut() {
        var machine = machine()
        #expect(machine.nextStream() == 1)
        #expect(machine.nextStream() == 3)
        let last = Int(Int32.max) - 4  // the highest odd id below 2^31 - 3
        var ending = Machine(pingInterval: .seconds(60), pingTimeout: .seconds(10), now: start, firstStream: last - 2)
        #expect(ending.nextStream() == UInt32(last - 2))
        #expect(ending.nextStream() == UInt32(last))
        #expect(ending.nextStream() == nil)
        #expect(ending.nextStream() == nil)  // and stays out
    }

    /// A GOAWAY or the client's own close stops new requests; the connection closes when none is in flight.
    @Test func drainingStopsNewRequestsAndClosesWhenNothingIsInFlight() {
        var machine = machine()
        machine.answered(status: 200)
        machine.settingsReceived(maximumConcurrentStreams: 10)
        #expect(!machine.shouldClose(inFlight: 0))
        #expect(machine.goAwayReceived(reason: .shutdown) == true)
        #expect(machine.goAwayReason == .shutdown)
        #expect(machine.isDraining && !machine.canStart(inFlight: 0))
        #expect(!machine.shouldClose(inFlight: 2))
        #expect(machine.shouldClose(inFlight: 0))
        #expect(machine.startDraining() == false)  // once
        #expect(machine.goAwayReceived(reason: nil) == false)
    }

    /// Idle for the interval: a ping; unanswered for the timeout: dead; an answer or any frame resets it.
    @Test func idleConnectionsArePingedAndDeadOnesFound() {
        var machine = machine()
        #expect(machine.tick(now: start + .seconds(59), idle: true) == .fine)
        #expect(machine.tick(now: start + .seconds(61), idle: false) == .fine)  // busy: no ping
        #expect(machine.tick(now: start + .seconds(61), idle: true) == .sendPing)
        #expect(machine.tick(now: start + .seconds(70), idle: true) == .fine)  // waiting for the answer
        machine.pingAcknowledged()
        machine.heard(at: start + .seconds(70))
        #expect(machine.tick(now: start + .seconds(129), idle: true) == .fine)
        #expect(machine.tick(now: start + .seconds(131), idle: true) == .sendPing)
        #expect(machine.tick(now: start + .seconds(140), idle: true) == .fine)
        #expect(machine.tick(now: start + .seconds(141), idle: true) == .unanswered)
    }
}
