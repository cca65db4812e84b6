package import Foundation

/// A Live Activity as the daemon hands it to its app (ActivityKit's `Activity`, before decoding the app's types).
package struct ActivityRecord: Codable, Sendable, Hashable {
    package var id: String
    /// The `ActivityAttributes` type's name.
    package var attributesType: String
    /// The attributes and the content state, JSON objects.
    package var attributes: Data
    package var state: Data
    package var staleDate: Date?
    package var relevanceScore: Double?
    /// `active`, `ended` or `dismissed`.
    package var phase: String
    /// Active past its stale date.
    package var isStale: Bool
    /// The activity's push token (hex), once the gateway gave it.
    package var pushToken: String?
    /// When it started: the order `activities` lists them in.
    package var createdAt: Date

    package init(
        id: String, attributesType: String, attributes: Data, state: Data, staleDate: Date?, relevanceScore: Double?, phase: String,
        isStale: Bool, pushToken: String?, createdAt: Date
    ) {
        self.id = id
        self.attributesType = attributesType
        self.attributes = attributes
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.phase = phase
        self.isStale = isStale
        self.pushToken = pushToken
        self.createdAt = createdAt
    }
}

/// What an app sees of its Live Activities of one type at once.
package struct ActivitySnapshot: Codable, Sendable, Hashable {
    package var activities: [ActivityRecord]
    /// The app's push-to-start token (hex), once the gateway gave it.
    package var pushToStartToken: String?
    /// The app declares `NSSupportsLiveActivities` and the person has not turned Live Activities off for it.
    package var enabled: Bool
    /// `NSSupportsLiveActivitiesFrequentUpdates`, and the person allows it.
    package var frequentPushesEnabled: Bool

    package init(activities: [ActivityRecord], pushToStartToken: String?, enabled: Bool, frequentPushesEnabled: Bool) {
        self.activities = activities
        self.pushToStartToken = pushToStartToken
        self.enabled = enabled
        self.frequentPushesEnabled = frequentPushesEnabled
    }
}

/// `Activity.request(attributes:content:pushType:)`, encoded.
package struct ActivityRequestRecord: Codable, Sendable, Hashable {
    package var attributesType: String
    package var attributes: Data
    package var state: Data
    package var staleDate: Date?
    package var relevanceScore: Double?
    /// Takes pushes on a token of its own (`pushType: .token`).
    package var wantsToken: Bool
    /// Takes a channel's broadcasts (`pushType: .channel(id)`).
    package var channelID: String?

    package init(
        attributesType: String, attributes: Data, state: Data, staleDate: Date?, relevanceScore: Double?, wantsToken: Bool, channelID: String?
    ) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.wantsToken = wantsToken
        self.channelID = channelID
    }
}

/// An update or end by the app: the new content, and for an end when it leaves the screen.
package struct ActivityChangeRecord: Codable, Sendable, Hashable {
    package var id: String
    /// Nil for an end that keeps the last state.
    package var state: Data?
    package var staleDate: Date?
    package var relevanceScore: Double?
    /// `AlertConfiguration`: title and body, to alert the person with.
    package var alertTitle: String?
    package var alertBody: String?
    /// Ends it (else an update).
    package var ends: Bool
    /// For an end: leave at once (`.immediate`), at this date (`.after`), or nil for the default (up to 4 hours).
    package var dismissImmediately: Bool
    package var dismissalDate: Date?

    package init(
        id: String, state: Data?, staleDate: Date?, relevanceScore: Double?, alertTitle: String? = nil, alertBody: String? = nil,
        ends: Bool = false, dismissImmediately: Bool = false, dismissalDate: Date? = nil
    ) {
        self.id = id
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.alertTitle = alertTitle
        self.alertBody = alertBody
        self.ends = ends
        self.dismissImmediately = dismissImmediately
        self.dismissalDate = dismissalDate
    }
}
