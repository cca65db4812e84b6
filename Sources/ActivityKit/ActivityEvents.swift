/// One of ActivityKit's async sequences (`contentUpdates`, `activityUpdates`, `pushTokenUpdates`…): what the device
/// daemon says from the moment it is made, as values of `Element`; with `isSame`, a value equal to the one before is
/// left out (the daemon reports every change of an activity, and a content change is not a new state or token).
public struct ActivityEvents<Element>: AsyncSequence {
    let first: Element?
    /// What the caller shows now: not given again, though not given at first either.
    let seen: Element?
    let stream: AsyncStream<ActivityRegistry.Update>
    let transform: (ActivityRegistry.Update) -> Element?
    let isSame: ((Element, Element) -> Bool)?

    init(
        first: Element? = nil, seen: Element? = nil, isSame: ((Element, Element) -> Bool)? = nil,
        _ transform: @escaping (ActivityRegistry.Update) -> Element?
    ) {
        self.first = first
        self.seen = seen
        stream = ActivityRegistry.shared.updates()
        self.transform = transform
        self.isSame = isSame
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(pending: first, last: seen, base: stream.makeAsyncIterator(), transform: transform, isSame: isSame)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var pending: Element?
        var last: Element?
        var base: AsyncStream<ActivityRegistry.Update>.Iterator
        let transform: (ActivityRegistry.Update) -> Element?
        let isSame: ((Element, Element) -> Bool)?

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            if let pending {
                self.pending = nil
                last = pending
                return pending
            }
            while let update = await base.next(isolation: actor) {
                guard let element = transform(update) else { continue }
                if let isSame, let last, isSame(last, element) { continue }
                last = element
                return element
            }
            return nil
        }

        public mutating func next() async -> Element? {
            await next(isolation: nil)
        }
    }
}
