import HeraldWire
import Testing

@Suite struct BackoffTests {
    @Test func theCeilingDoublesUpToTheMaximumAndEachWaitIsInItsUpperHalf() {
        let initial = Duration.milliseconds(200)
        let maximum = Duration.seconds(5)
        let ceilings: [Duration] = [
            .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600),
            .milliseconds(3200), .seconds(5), .seconds(5),
        ]
        for (index, ceiling) in ceilings.enumerated() {
            for _ in 0..<200 {
                let wait = Backoff.wait(attempt: index + 1, initial: initial, maximum: maximum)
                #expect(wait >= ceiling / 2 && wait <= ceiling, "attempt \(index + 1): \(wait)")
            }
        }
        #expect(Backoff.wait(attempt: 1_000, initial: initial, maximum: maximum) <= maximum)
    }

    /// Devices dropped together must not come back together: the waits of one attempt spread over its range.
    @Test func clientsFailingTogetherDoNotRetryTogether() {
        let waits = (0..<1_000).map { _ in Backoff.wait(attempt: 6, initial: .milliseconds(200), maximum: .seconds(5)) }
        let fifths = Set(waits.map { Int(($0 - .milliseconds(2500)) / .milliseconds(500)) })
        #expect(fifths.isSuperset(of: [0, 1, 2, 3, 4]), "waits between 2.5 and 5 s fall in every 0.5 s slice: \(fifths.sorted())")
    }
}
