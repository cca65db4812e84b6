import HeraldTesting
import Testing

/// `Watched`, which the tests of every module wait on: a change wakes exactly the waiters whose condition now holds.
@Suite(.timeLimit(.minutes(1))) struct WatchedTests {
    @Test func aConditionThatHoldsAlreadyNeedsNoChange() async {
        let value = Watched(3)
        #expect(await value.wait { $0 == 3 })
    }

    @Test func eachChangeWakesTheWaitersItSatisfies() async {
        let value = Watched(0)
        async let five = value.wait { $0 == 5 }
        async let four = value.wait { $0 == 4 }
        value.update { $0 = 4 }
        #expect(await four)
        value.update { $0 = 5 }
        #expect(await five)
        #expect(await value.wait(timeout: .milliseconds(20)) { $0 == 4 } == false)  // 5 now: the condition no longer holds
    }

    @Test func aWaitGivesUpAfterItsTimeout() async {
        let value = Watched(0)
        #expect(await value.wait(timeout: .milliseconds(20)) { $0 == 1 } == false)
        #expect(value.value == 0)
    }

    @Test func eachTakerTakesItsOwnItem() async {
        let queue = Watched<[String]>([])
        async let first = queue.take(when: { !$0.isEmpty }) { $0.removeFirst() }
        async let second = queue.take(when: { !$0.isEmpty }) { $0.removeFirst() }
        queue.update { $0 += ["a", "b"] }
        let taken = await [first, second]
        #expect(Set(taken.compactMap { $0 }) == ["a", "b"])
        #expect(queue.value.isEmpty)
        #expect(await queue.take(timeout: .milliseconds(20), when: { !$0.isEmpty }) { $0.removeFirst() } == nil)
    }
}
