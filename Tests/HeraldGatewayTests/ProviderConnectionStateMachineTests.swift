import HeraldWire
import NIOHTTP2
import Testing

@testable import HeraldGateway

/// A provider connection's rules without sockets: the stream limit, the error budget, and every order of closing.
@Suite struct ProviderConnectionStateMachineTests {
    typealias Machine = ProviderConnection.StateMachine
    typealias Action = Machine.Action

    private func machine(budget: Int = 500, unknownSenderBudget: Int = 20) -> Machine {
        var configuration = GatewayConfiguration()
        configuration.connectionErrorBudget = budget
        configuration.unknownSenderErrorBudget = unknownSenderBudget
        return Machine(configuration: configuration)
    }

    private func id(_ value: Int) -> HTTP2StreamID { HTTP2StreamID(value) }

    private func rejection(_ reason: APNsReason) -> Rejection { Rejection(reason, "") }

    /// Opens streams 1, 3, 5, … as requests.
    private func open(_ machine: inout Machine, _ ids: [Int]) {
        for value in ids {
            #expect(machine.headersReceived(on: id(value)) == true)
            machine.streamOpened(id(value))
        }
    }

    @Test func theStreamLimitRisesAfterTheFirstSuccessAndFallsAfterA403() {
        var machine = machine()
        #expect(machine.answered(rejection(.badDeviceToken)) == [])
        #expect(machine.answered(nil) == [.announce(maximumConcurrentStreams: 1000)])
        #expect(machine.answered(nil) == [])  // once
        #expect(machine.answered(rejection(.invalidProviderToken)) == [.announce(maximumConcurrentStreams: 1)])
        #expect(machine.answered(rejection(.invalidProviderToken)) == [])  // already down
        #expect(machine.answered(nil) == [.announce(maximumConcurrentStreams: 1000)])
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
        var machine = machine(budget: 7)
        #expect(machine.answered(rejection(.unregistered)) == [])
        #expect(machine.answered(rejection(.internalServerError)) == [])
        #expect(machine.answered(rejection(.badDeviceToken)) == [])  // 5
        #expect(machine.answered(rejection(.badPriority)) == [])  // 6
        #expect(machine.closingReason == nil)
        #expect(machine.answered(rejection(.badTopic)) == [.sendGoAway(lastStreamID: .rootStream, reason: .badTopic, thenClose: true)])
        #expect(machine.closingReason == .badTopic)
    }

    /// Until a request shows its sender, errors spend the smaller budget; once one has, the full one applies.
    @Test func errorsBeforeTheSenderIsKnownSpendTheSmallerBudget() {
        var anonymous = machine(budget: 500, unknownSenderBudget: 3)
        #expect(anonymous.answered(rejection(.missingProviderToken), senderKnown: false) == [])
        #expect(anonymous.answered(rejection(.invalidProviderToken), senderKnown: false) == [])
        #expect(
            anonymous.answered(rejection(.missingProviderToken), senderKnown: false) == [
                .sendGoAway(lastStreamID: .rootStream, reason: .missingProviderToken, thenClose: true)
            ])

        var known = machine(budget: 500, unknownSenderBudget: 3)
        for _ in 0..<10 { #expect(known.answered(rejection(.badTopic), senderKnown: true) == []) }
        #expect(known.closingReason == nil)
    }

    @Test func closingAnIdleConnectionSendsItsGoAwayAndClosesAtOnce() {
        var machine = machine()
        open(&machine, [1, 3])
        #expect(machine.streamClosed(id(1)) == nil)
        #expect(machine.streamClosed(id(3)) == nil)
        #expect(machine.startClosing(.idleTimeout) == [.sendGoAway(lastStreamID: id(3), reason: .idleTimeout, thenClose: true)])
        #expect(machine.startClosing(.shutdown) == [])  // the first reason counts
        #expect(machine.closingReason == .idleTimeout)
    }

    /// The GOAWAY waits for every request open when closing began; newer streams do not hold it back, and the
    /// connection closes once they too are answered.
    @Test func theGoAwayWaitsForTheAnswersOwed() {
        var machine = machine()
        open(&machine, [1, 3, 5])
        #expect(machine.startClosing(.shutdown) == [.startGracePeriod])
        #expect(machine.closingReason == .shutdown)
        open(&machine, [7])  // arrived after closing began: refused with the reason, not owed
        #expect(machine.streamClosed(id(7)) == nil)
        #expect(machine.streamClosed(id(3)) == nil)
        open(&machine, [9])
        #expect(machine.streamClosed(id(1)) == nil)
        #expect(machine.streamClosed(id(5)) == .sendGoAway(lastStreamID: id(9), reason: .shutdown, thenClose: false))
        #expect(machine.streamClosed(id(9)) == .close)
        #expect(machine.gracePeriodEnded() == [])  // closed already
    }

    @Test func theGracePeriodEndsWhatTheAnswersDidNot() {
        var draining = machine()
        open(&draining, [1, 3])
        #expect(draining.startClosing(.shutdown) == [.startGracePeriod])
        #expect(draining.streamClosed(id(1)) == nil)
        #expect(draining.gracePeriodEnded() == [.sendGoAway(lastStreamID: id(3), reason: .shutdown, thenClose: false), .close])
        #expect(draining.gracePeriodEnded() == [])

        var answeredButOpen = machine()
        open(&answeredButOpen, [1])
        #expect(answeredButOpen.startClosing(.shutdown) == [.startGracePeriod])
        open(&answeredButOpen, [3])  // still sending its body when the GOAWAY goes
        #expect(answeredButOpen.streamClosed(id(1)) == .sendGoAway(lastStreamID: id(3), reason: .shutdown, thenClose: false))
        #expect(answeredButOpen.gracePeriodEnded() == [.close])
    }

    /// A connection error closes an open connection at once; a closing one refuses what it has not handed on.
    @Test func aConnectionErrorClosesOrRefusesByPhase() {
        var open = machine()
        #expect(open.connectionError() == .close)
        #expect(open.closingReason == nil)

        var closing = machine()
        self.open(&closing, [1])
        _ = closing.startClosing(.shutdown)
        #expect(closing.connectionError() == .refuseUnsubmittedStreams)
        #expect(closing.streamClosed(id(1)) == .sendGoAway(lastStreamID: id(1), reason: .shutdown, thenClose: true))
        #expect(closing.closingReason == .shutdown)
    }

    /// An error budget spent while closing changes nothing; closing for the budget while requests are open drains.
    @Test func theBudgetSpentWithRequestsOpenDrains() {
        var machine = machine(budget: 1)
        open(&machine, [1, 3])
        #expect(machine.answered(rejection(.badPriority)) == [.startGracePeriod])
        #expect(machine.answered(rejection(.badTopic)) == [])
        #expect(machine.closingReason == .badPriority)
    }
}
