import HeraldWire
import NIOCore
import NIOHTTP2
import Testing

@testable import HeraldGateway

/// A provider connection's rules without sockets or clocks: the stream limit, the error budget, every order of
/// closing, and every deadline, on time given as `now`.
@Suite struct ProviderConnectionStateMachineTests {
    typealias Machine = ProviderConnection.StateMachine
    typealias Action = Machine.Action

    /// The moment the connection was accepted.
    private let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    private func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

    private func machine(budget: Int = 500, unknownSenderBudget: Int = 20) -> Machine {
        var configuration = GatewayConfiguration()
        configuration.connectionErrorBudget = budget
        configuration.unknownSenderErrorBudget = unknownSenderBudget
        configuration.providerHandshakeTimeout = .seconds(10)
        configuration.unusedConnectionTimeout = .seconds(20)
        configuration.idleTimeout = .seconds(3600)
        configuration.stalledConnectionTimeout = .seconds(30)
        configuration.shutdownGracePeriod = .seconds(10)
        var machine = Machine(configuration: configuration)
        machine.connected(now: start)
        machine.frameRead()
        return machine
    }

    /// A machine whose sender is known (a request showed a valid token): the full budget, no unused deadline.
    private func known(budget: Int = 500) -> Machine {
        var machine = machine(budget: budget)
        machine.senderShown()
        return machine
    }

    private func id(_ value: Int) -> HTTP2StreamID { HTTP2StreamID(value) }

    private func rejection(_ reason: APNsReason) -> Rejection { Rejection(reason, "") }

    /// Opens streams 1, 3, 5, … as requests, handed on for processing.
    private func open(_ machine: inout Machine, _ ids: [Int]) {
        for value in ids {
            #expect(machine.headersReceived(on: id(value)) == true)
            machine.streamOpened(id(value))
            machine.requestSubmitted()
        }
    }

    private func answer(_ machine: inout Machine, _ value: Int) -> Action? {
        machine.streamClosed(id(value), wasSubmitted: true)
    }

    @Test func theStreamLimitRisesAfterTheFirstSuccessAndFallsAfterA403() {
        var machine = known()
        #expect(machine.answered(rejection(.badDeviceToken), now: start) == [])
        #expect(machine.answered(nil, now: start) == [.announce(maximumConcurrentStreams: 1000)])
        #expect(machine.answered(nil, now: start) == [])  // once
        #expect(machine.answered(rejection(.invalidProviderToken), now: start) == [.announce(maximumConcurrentStreams: 1)])
        #expect(machine.answered(rejection(.invalidProviderToken), now: start) == [])  // already down
        #expect(machine.answered(nil, now: start) == [.announce(maximumConcurrentStreams: 1000)])
    }

    @Test func headersAboveTheHighestStreamOpenOneTheRestAreTrailers() {
        var machine = machine()
        #expect(machine.headersReceived(on: id(3)) == true)
        #expect(machine.headersReceived(on: id(3)) == false)
        #expect(machine.headersReceived(on: id(1)) == false)
        #expect(machine.headersReceived(on: id(5)) == true)
    }

    /// 410s and 5xx cost nothing; BadDeviceToken costs five; the budget spent closes with the last reason.
    @Test func aSpentErrorBudgetClosesWithItsLastReason() {
        var machine = known(budget: 7)
        #expect(machine.answered(rejection(.unregistered), now: start) == [])
        #expect(machine.answered(rejection(.internalServerError), now: start) == [])
        #expect(machine.answered(rejection(.badDeviceToken), now: start) == [])  // 5
        #expect(machine.answered(rejection(.badPriority), now: start) == [])  // 6
        #expect(machine.closingReason == nil)
        #expect(machine.answered(rejection(.badTopic), now: start) == [.sendGoAway(lastStreamID: .rootStream, reason: .badTopic, thenClose: true)])
        #expect(machine.closingReason == .badTopic)
    }

    /// Until a request shows its sender, errors spend the smaller budget; once one has, the full one applies.
    @Test func errorsBeforeTheSenderIsKnownSpendTheSmallerBudget() {
        var anonymous = machine(budget: 500, unknownSenderBudget: 3)
        #expect(anonymous.answered(rejection(.missingProviderToken), now: start) == [])
        #expect(anonymous.answered(rejection(.invalidProviderToken), now: start) == [])
        #expect(
            anonymous.answered(rejection(.missingProviderToken), now: start) == [
                .sendGoAway(lastStreamID: .rootStream, reason: .missingProviderToken, thenClose: true)
            ])

        var known = known()
        for _ in 0..<10 { #expect(known.answered(rejection(.badTopic), now: start) == []) }
        #expect(known.closingReason == nil)
    }

    @Test func closingAnIdleConnectionSendsItsGoAwayAndClosesAtOnce() {
        var machine = known()
        open(&machine, [1, 3])
        #expect(answer(&machine, 1) == nil)
        #expect(answer(&machine, 3) == nil)
        #expect(machine.startClosing(.idleTimeout, now: start) == [.sendGoAway(lastStreamID: id(3), reason: .idleTimeout, thenClose: true)])
        #expect(machine.startClosing(.shutdown, now: start) == [])  // the first reason counts
        #expect(machine.closingReason == .idleTimeout)
        #expect(machine.nextDeadline == nil)
    }

    /// The GOAWAY waits for every request open when closing began; newer streams do not hold it back, and the
    /// connection closes once they too are answered.
    @Test func theGoAwayWaitsForTheAnswersOwed() {
        var machine = known()
        open(&machine, [1, 3, 5])
        #expect(machine.startClosing(.shutdown, now: start) == [])
        #expect(machine.nextDeadline == at(10))  // the grace period
        #expect(machine.closingReason == .shutdown)
        open(&machine, [7])  // arrived after closing began: refused with the reason, not owed
        #expect(answer(&machine, 7) == nil)
        #expect(answer(&machine, 3) == nil)
        open(&machine, [9])
        #expect(answer(&machine, 1) == nil)
        #expect(answer(&machine, 5) == .sendGoAway(lastStreamID: id(9), reason: .shutdown, thenClose: false))
        #expect(answer(&machine, 9) == .close)
        #expect(machine.timerFired(now: at(10)) == [])  // closed already
    }

    @Test func theGracePeriodEndsWhatTheAnswersDidNot() {
        var draining = known()
        open(&draining, [1, 3])
        #expect(draining.startClosing(.shutdown, now: start) == [])
        #expect(answer(&draining, 1) == nil)
        #expect(draining.timerFired(now: at(9)) == [])
        #expect(draining.timerFired(now: at(10)) == [.sendGoAway(lastStreamID: id(3), reason: .shutdown, thenClose: false), .close])
        #expect(draining.timerFired(now: at(20)) == [])

        var answeredButOpen = known()
        open(&answeredButOpen, [1])
        #expect(answeredButOpen.startClosing(.shutdown, now: start) == [])
        open(&answeredButOpen, [3])  // still sending its body when the GOAWAY goes
        #expect(answer(&answeredButOpen, 1) == .sendGoAway(lastStreamID: id(3), reason: .shutdown, thenClose: false))
        #expect(answeredButOpen.nextDeadline == at(10))
        #expect(answeredButOpen.timerFired(now: at(10)) == [.close])
    }

    /// A connection error closes an open connection at once; a closing one refuses what it has not handed on.
    @Test func aConnectionErrorClosesOrRefusesByPhase() {
        var open = known()
        #expect(open.connectionError() == .close)
        #expect(open.closingReason == nil)

        var closing = known()
        self.open(&closing, [1])
        _ = closing.startClosing(.shutdown, now: start)
        #expect(closing.connectionError() == .refuseUnsubmittedStreams)
        #expect(answer(&closing, 1) == .sendGoAway(lastStreamID: id(1), reason: .shutdown, thenClose: true))
        #expect(closing.closingReason == .shutdown)
    }

    /// An error budget spent while closing changes nothing; closing for the budget while requests are open drains.
    @Test func theBudgetSpentWithRequestsOpenDrains() {
        var machine = known(budget: 1)
        open(&machine, [1, 3])
        #expect(machine.answered(rejection(.badPriority), now: start) == [])
        #expect(machine.nextDeadline == at(10))
        #expect(machine.answered(rejection(.badTopic), now: start) == [])
        #expect(machine.closingReason == .badPriority)
    }

    // MARK: Deadlines

    @Test func noFrameWithinTheHandshakeTimeoutCloses() {
        var configuration = GatewayConfiguration()
        configuration.providerHandshakeTimeout = .seconds(10)
        var silent = Machine(configuration: configuration)
        silent.connected(now: start)
        #expect(silent.nextDeadline == at(10))
        #expect(silent.timerFired(now: at(9)) == [])
        #expect(silent.timerFired(now: at(10)) == [.count(reason: "handshake_timeout"), .close])
        #expect(silent.nextDeadline == nil)

        var talking = Machine(configuration: configuration)
        talking.connected(now: start)
        talking.frameRead()
        #expect(talking.timerFired(now: at(10)) == [])  // the deadline of the idle connection is later
    }

    /// No request shows its sender within the unused timeout: GOAWAY IdleTimeout, counted as unused. A first request
    /// being processed when the deadline comes gets another period; a sender shown lifts the deadline.
    @Test func anUnusedConnectionIsClosedAfterTheUnusedTimeout() {
        var unused = machine()
        #expect(unused.nextDeadline == at(20))
        #expect(
            unused.timerFired(now: at(20)) == [
                .count(reason: "unused"), .sendGoAway(lastStreamID: .rootStream, reason: .idleTimeout, thenClose: true),
            ])

        var processing = machine()
        open(&processing, [1])
        #expect(processing.timerFired(now: at(20)) == [])
        #expect(processing.nextDeadline == at(40))
        #expect(answer(&processing, 1) == nil)
        processing.senderShown()
        #expect(processing.timerFired(now: at(40)) == [])
        #expect(processing.nextDeadline == at(3600))  // from now on, only idleness
    }

    @Test func activityPostponesIdleness() {
        var machine = known()
        machine.active(now: at(3000))
        #expect(machine.timerFired(now: at(3600)) == [])
        #expect(machine.nextDeadline == at(6600))
        #expect(machine.timerFired(now: at(6600)) == [.sendGoAway(lastStreamID: .rootStream, reason: .idleTimeout, thenClose: true)])
    }

    /// While the connection cannot be written, reads are held (and passed on when it can); blocked writes for the
    /// stalled timeout close it.
    @Test func aConnectionThatCannotBeWrittenIsNotReadAndIsClosedOnceStalled() {
        var machine = known()
        var passed = machine.readRequested()
        #expect(passed)
        #expect(machine.writabilityChanged(writable: false, now: at(100)) == nil)
        passed = machine.readRequested()
        #expect(!passed)
        #expect(machine.writabilityChanged(writable: true, now: at(110)) == .read)
        passed = machine.readRequested()
        #expect(passed)

        #expect(machine.writabilityChanged(writable: false, now: at(200)) == nil)
        #expect(machine.nextDeadline == at(230))
        #expect(machine.timerFired(now: at(229)) == [])
        #expect(machine.timerFired(now: at(230)) == [.count(reason: "stalled"), .close])
    }

    /// Answers held by the client's flow-control window: closed when none goes out for the stalled timeout.
    @Test func answersHeldByAClosedWindowCloseTheConnectionOnceStalled() {
        var machine = known()
        machine.answerWaits(now: at(100))
        machine.answerWaits(now: at(105))
        #expect(machine.nextDeadline == at(130))
        machine.answerWentOut(now: at(120))  // one moved: the wait starts over
        #expect(machine.timerFired(now: at(130)) == [])
        #expect(machine.nextDeadline == at(150))
        #expect(machine.timerFired(now: at(150)) == [.count(reason: "stalled"), .close])
    }
}
