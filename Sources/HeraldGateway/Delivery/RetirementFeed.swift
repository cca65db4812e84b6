import HeraldStore
import Logging
public import ServiceLifecycle

/// Announces every retired token once, whichever process retired it — a device over its link, the console, or
/// `herald tokens retire` writing to the store beside the running gateway (or another node of a cluster): the
/// console's event stream gets `unregistered`, the directory forgets the live record at once, and the device that
/// held the token is told when it is linked here and did not ask itself.
///
/// Retirements are numbered in commit order by the store; the feed reads those after the last number it announced,
/// on a beat (``GatewayConfiguration/retirementInterval``) and whenever this gateway retired one itself (``check()``).
public actor RetirementFeed: Service {
    private let store: any Store
    private let hub: DeviceHub
    private let events: DeliveryEvents
    private let directory: Directory
    private let interval: Duration
    private let faults: StoreFaultLog
    /// The number of the last retirement announced; nil until the store said where to start (the latest retirement
    /// when the gateway started: earlier ones were announced by whoever ran then).
    private var announced: Int64?
    private var checking = false
    private var checkAgain = false

    init(store: any Store, hub: DeviceHub, events: DeliveryEvents, directory: Directory, interval: Duration, logger: Logger) {
        self.store = store
        self.hub = hub
        self.events = events
        self.directory = directory
        self.interval = interval
        faults = StoreFaultLog(work: "announcing retired tokens", logger: logger)
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await check()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }

    /// Reads where announcing starts (the latest retirement now), before the provider API opens: every token retired
    /// after this read is announced, so a live record the directory caches from then on is replaced when its token is
    /// retired (``GatewayConfiguration/liveDeviceTimeToLive`` relies on it). When the store cannot be read now, the
    /// first check reads it.
    func startFromLatest() async {
        guard announced == nil else { return }
        announced = try? await store.latestRetirement()
    }

    /// Announces what was retired since the last check; a check asked for while one runs makes that one read again.
    public func check() async {
        if checking {
            checkAgain = true
            return
        }
        checking = true
        defer { checking = false }
        repeat {
            checkAgain = false
            await announceNew()
        } while checkAgain
    }

    private func announceNew() async {
        do {
            var after: Int64
            if let announced {
                after = announced
            } else {
                after = try await store.latestRetirement()
                announced = after
            }
            while true {
                let batch = try await store.retirements(after: after, limit: Self.batchLimit)
                for retirement in batch { announce(retirement.device) }
                if let last = batch.last {
                    after = last.sequence
                    announced = after
                }
                if batch.count < Self.batchLimit { break }
            }
            faults.succeeded()
        } catch {
            if !Task.isCancelled { faults.failed(error) }
        }
    }

    private static let batchLimit = 500

    private func announce(_ device: DeviceRecord) {
        directory.remember(device)
        events.publish { [DeliveryEvents.unregistered(device)] }
        hub.retired(device)
    }
}
