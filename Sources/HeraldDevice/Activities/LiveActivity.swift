package import Foundation

/// A Live Activity as the device daemon keeps it (ActivityKit's `Activity` seen from the system's side): what it
/// shows, where its pushes come from, and where it is in its life.
package struct LiveActivity: Sendable, Hashable {
    /// ActivityKit's `ActivityState` without `stale`, which is a matter of time (``isStale(at:)``).
    package enum Phase: String, Sendable, Hashable {
        case active, ended, dismissed
    }

    /// Who started it.
    package enum Origin: String, Sendable, Hashable {
        /// The app, with `Activity.request`.
        case app
        /// A push to the app's push-to-start token.
        case push
    }

    package var id: String
    package var bundleID: String
    /// The `ActivityAttributes` type's name, as the provider's `attributes-type` names it.
    package var attributesType: String
    /// The static attributes, a JSON object.
    package var attributes: Data
    /// The dynamic state (`ContentState`), a JSON object.
    package var state: Data
    package var staleDate: Date?
    package var relevanceScore: Double?
    package var phase: Phase
    package var origin: Origin
    /// It takes pushes on a token of its own (`pushType: .token`, or `input-push-token`).
    package var wantsToken: Bool
    /// The token, once the gateway gave it.
    package var pushToken: String?
    /// The token was retired at the gateway (the activity was dismissed, or the app removed).
    package var tokenRetired: Bool
    /// The broadcast channel it takes (`pushType: .channel(id)`, or `input-push-channel`).
    package var channelID: String?
    package var createdAt: Date
    package var endedAt: Date?
    /// When an ended activity leaves the screen.
    package var dismissAt: Date?
    /// The `timestamp` of the last push applied (seconds); older pushes are dropped, as iOS drops them.
    package var lastTimestamp: Double
    /// Its stale date passed and that was reported.
    package var staleReported: Bool
    /// The priority-10 pushes applied in the hour that began at ``budgetWindowStart``.
    package var budgetUsed: Int
    package var budgetWindowStart: Date?

    package init(
        id: String, bundleID: String, attributesType: String, attributes: Data, state: Data, staleDate: Date? = nil,
        relevanceScore: Double? = nil, phase: Phase = .active, origin: Origin, wantsToken: Bool = false, pushToken: String? = nil,
        tokenRetired: Bool = false, channelID: String? = nil, createdAt: Date, endedAt: Date? = nil, dismissAt: Date? = nil,
        lastTimestamp: Double = 0, staleReported: Bool = false, budgetUsed: Int = 0, budgetWindowStart: Date? = nil
    ) {
        self.id = id
        self.bundleID = bundleID
        self.attributesType = attributesType
        self.attributes = attributes
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.phase = phase
        self.origin = origin
        self.wantsToken = wantsToken
        self.pushToken = pushToken
        self.tokenRetired = tokenRetired
        self.channelID = channelID
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.dismissAt = dismissAt
        self.lastTimestamp = lastTimestamp
        self.staleReported = staleReported
        self.budgetUsed = budgetUsed
        self.budgetWindowStart = budgetWindowStart
    }

    /// Active past its stale date.
    package func isStale(at now: Date) -> Bool {
        phase == .active && staleDate.map { $0 <= now } == true
    }
}

/// iOS's limits on Live Activities.
package enum ActivityLimits {
    /// An activity ends by itself after 8 hours active.
    package static let activeDuration: TimeInterval = 8 * 3600
    /// An ended activity stays on the Lock Screen up to 4 hours, unless dismissed sooner.
    package static let shownAfterEnd: TimeInterval = 4 * 3600
    /// The combined size of its attributes and state (ActivityKit: 4 KB).
    package static let dataSize = 4096
    /// Priority-10 pushes an activity takes in an hour. Apple publishes no number; about 15 has been observed, and
    /// `NSSupportsLiveActivitiesFrequentUpdates` (with the person's "More Frequent Updates" on) allows updates more
    /// than once a minute: Herald takes 15 and 120 (docs/live-activities.md).
    package static let priorityBudget = 15
    package static let frequentPriorityBudget = 120
    /// Activities of one app at once. Apple does not publish the number; iOS has been seen to refuse the sixth, so
    /// Herald takes 5 (docs/live-activities.md).
    package static let perApp = 5
}
