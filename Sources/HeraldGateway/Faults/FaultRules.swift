import Foundation
public import HeraldStore
import HeraldWire
import Logging
public import ServiceLifecycle
import Synchronization

/// The fault rules a gateway honours (docs/faults.md): read from the store every second, so a rule added by `herald
/// faults add` or the admin API takes effect within a second, and matched against each request the gateway would
/// otherwise accept. With no rule loaded a request costs one atomic load here; with rules, only those naming its token
/// or topic, or naming neither, are tried (``RuleIndex``).
///
/// A gateway honours rules in the development environment, and in production only when started with
/// `--allow-faults`; otherwise it never reads them. Counts and shares are kept by each gateway: in a cluster, each node
/// takes its own `count` of requests.
public final class FaultRules: Service, Sendable {
    /// A rule as this gateway applies it: how often it took a request, and its generator for a share.
    public struct Applied: Sendable {
        public var rule: FaultRule
        /// How many requests it took here.
        public var taken: Int
        var generator: SeededGenerator?
    }

    private struct State {
        var rules: [Applied] = []
        /// Where to look for a request's rules: made again whenever rules come or go (not when one counts a request).
        var index = RuleIndex([])
        /// Count rules used up here, not yet gone from the store.
        var usedUp: Set<String> = []
    }

    /// The rules a request can match, found without trying every rule: those naming its token, its token's first two
    /// digits (a prefix rule), or its topic, and those naming none of them (tried in turn). A thousand rules cost a
    /// request a few dictionary lookups.
    struct RuleIndex {
        private var byToken: [String: [Int]] = [:]
        private var byPrefix: [Substring: [Int]] = [:]
        private var byTopic: [String: [Int]] = [:]
        private var others: [Int] = []

        init(_ matches: [FaultRule.Match]) {
            for (position, match) in matches.enumerated() {
                if let token = match.token {
                    byToken[token, default: []].append(position)
                } else if let prefix = match.tokenPrefix, prefix.count >= 2 {
                    byPrefix[prefix.prefix(2), default: []].append(position)
                } else if let topic = match.topic {
                    byTopic[topic, default: []].append(position)
                } else {
                    others.append(position)
                }
            }
        }

        /// The positions of the rules `notification` may match, in the rules' order.
        func candidates(for notification: StoredNotification) -> [Int] {
            let hex = notification.deviceToken.hex
            let found = (byToken[hex] ?? []) + (byPrefix[hex.prefix(2)] ?? []) + (byTopic[notification.topic] ?? [])
            return found.isEmpty ? others : (found + others).sorted()
        }
    }

    /// Whether this gateway honours rules at all.
    public let enabled: Bool
    private let state = Mutex(State())
    private let loaded = Atomic<Bool>(false)
    private let store: any Store
    private let clock: any WallClock
    private let interval: Duration
    private let logger: Logger

    init(store: any Store, enabled: Bool, clock: any WallClock, interval: Duration = .seconds(1), logger: Logger) {
        self.store = store
        self.clock = clock
        self.enabled = enabled
        self.interval = interval
        self.logger = logger
    }

    /// At the gateway's start: rules not marked persistent (and expired ones) are removed, as the rules of a run that
    /// ended; then the rest are read.
    func start(at now: Date) async throws(StoreError) {
        guard enabled else { return }
        let removed = try await store.removeFaultRules(keepingPersistent: true, now: now)
        if removed > 0 { logger.info("fault rules of an earlier run removed", metadata: ["count": "\(removed)"]) }
        replace(with: try await store.faultRules(at: now))
    }

    /// The rules now, with what each took here.
    public var rules: [Applied] { state.withLock { $0.rules } }

    /// Reads the store's rules on its beat until the gateway stops.
    public func run() async throws {
        // A service that returns early would end the gateway: without rules to read, it waits for the shutdown.
        guard enabled else { return try await gracefulShutdown() }
        let failures = StoreFaultLog(work: "reading fault rules", logger: logger)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await reload(failures)
            try? await Task.sleep(for: interval)
        }
    }

    /// Reads the store's rules now (the admin API does after a change, so its answer is already in force).
    public func reload() async {
        await reload(StoreFaultLog(work: "reading fault rules", logger: logger))
    }

    private func reload(_ failures: StoreFaultLog) async {
        guard enabled else { return }
        do {
            replace(with: try await store.faultRules(at: clock.now()))
            failures.succeeded()
        } catch {
            failures.failed(error)
        }
    }

    /// Takes the store's rules, keeping what each known one took here.
    func replace(with rules: [FaultRule]) {
        state.withLock { state in
            let previous = Dictionary(state.rules.map { ($0.rule.id, $0) }, uniquingKeysWith: { first, _ in first })
            state.usedUp.formIntersection(rules.map(\.id))
            state.rules = rules.filter { !state.usedUp.contains($0.id) }.map { rule in
                if var known = previous[rule.id] {
                    known.rule = rule
                    return known
                }
                var generator: SeededGenerator?
                if case .share(_, let seed) = rule.scope { generator = SeededGenerator(seed: seed) }
                return Applied(rule: rule, taken: 0, generator: generator)
            }
            state.index = RuleIndex(state.rules.map(\.rule.match))
            loaded.store(!state.rules.isEmpty, ordering: .relaxed)
        }
    }

    /// The first rule that takes `notification` (sent with `headers`), counting it; nil for none. Nothing but one atomic
    /// load happens while no rule is loaded: not even reading the clock.
    func take(_ notification: StoredNotification, headers: [(name: String, value: String)]) -> FaultRule? {
        guard loaded.load(ordering: .relaxed) else { return nil }
        let now = clock.now()
        let (taken, usedUp) = state.withLock { state -> (FaultRule?, String?) in
            for index in state.index.candidates(for: notification) where state.rules[index].rule.expiresAt > now {
                guard Self.matches(state.rules[index].rule.match, notification, headers: headers) else { continue }
                switch state.rules[index].rule.scope {
                case .every:
                    break
                case .count(let count):
                    guard state.rules[index].taken < count else { continue }
                case .share(let percent, _):
                    guard let draw = state.rules[index].generator?.nextFraction(), draw * 100 < percent else { continue }
                }
                state.rules[index].taken += 1
                let rule = state.rules[index].rule
                if case .count(let count) = rule.scope, state.rules[index].taken >= count {
                    state.usedUp.insert(rule.id)
                    state.rules.remove(at: index)
                    state.index = RuleIndex(state.rules.map(\.rule.match))
                    loaded.store(!state.rules.isEmpty, ordering: .relaxed)
                    return (rule, rule.id)
                }
                return (rule, nil)
            }
            return (nil, nil)
        }
        if let usedUp { Task { [store] in _ = try? await store.removeFaultRule(id: usedUp) } }
        return taken
    }

    /// Whether every field `match` gives holds for the request.
    static func matches(_ match: FaultRule.Match, _ notification: StoredNotification, headers: [(name: String, value: String)]) -> Bool {
        if let token = match.token, notification.deviceToken.hex != token { return false }
        if let prefix = match.tokenPrefix, !notification.deviceToken.hex.hasPrefix(prefix) { return false }
        if let topic = match.topic, notification.topic != topic { return false }
        if let pushType = match.pushType, notification.pushType != pushType { return false }
        if let priority = match.priority, notification.priority != priority { return false }
        if let collapseID = match.collapseID, notification.collapseID != collapseID { return false }
        if let header = match.header, !headers.contains(where: { $0.name.lowercased() == header.name && $0.value == header.value }) {
            return false
        }
        if let payload = match.payload {
            guard let found = (try? JSONValue.parse(notification.payload))?.value(at: payload.pointer) else { return false }
            // 3 and 3.0 are the same number.
            if let number = found.doubleValue, let wanted = payload.value.doubleValue { return number == wanted }
            return found == payload.value
        }
        return true
    }
}

/// A small generator (SplitMix64) whose draws depend only on its seed: a `share` rule takes the same requests on every
/// run that sends them in the same order.
struct SeededGenerator: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The next draw in 0..<1.
    mutating func nextFraction() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        return Double(mixed >> 11) / Double(1 << 53)
    }
}
