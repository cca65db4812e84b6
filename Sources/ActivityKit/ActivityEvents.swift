/// One of ActivityKit's async sequences (`contentUpdates`, `activityUpdates`, `pushTokenUpdates`…): what the device
/// daemon says from the moment it is made, as values of `Element`.
public struct ActivityEvents<Element>: AsyncSequence {
    let first: Element?
    let stream: AsyncStream<ActivityRegistry.Update>
    let transform: (ActivityRegistry.Update) -> Element?

    init(first: Element? = nil, _ transform: @escaping (ActivityRegistry.Update) -> Element?) {
        self.first = first
        stream = ActivityRegistry.shared.updates()
        self.transform = transform
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(pending: first, base: stream.makeAsyncIterator(), transform: transform)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var pending: Element?
        var base: AsyncStream<ActivityRegistry.Update>.Iterator
        let transform: (ActivityRegistry.Update) -> Element?

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            if let pending {
                self.pending = nil
                return pending
            }
            while let update = await base.next(isolation: actor) {
                if let element = transform(update) { return element }
            }
            return nil
        }

        public mutating func next() async -> Element? {
            await next(isolation: nil)
        }
    }
}
