/// The bubbles a notification server shows for the daemon: each by the id the server gave it and by the
/// presentation it shows, so that both a signal (by server id) and a replacement or withdrawal (by presentation)
/// find theirs without a scan. At most ``limit`` are kept; beyond it the oldest (lowest ids) go.
struct DesktopBubbles: Codable {
    /// A bubble on screen.
    struct Bubble: Codable, Hashable {
        var serverID: UInt32
        var bundleID: String
        var identifier: String
        /// The text-input action its inline reply answers.
        var replyAction: String?
        var reportsDismissal: Bool
        /// An action, reply or open was reported: the close that follows is not a dismissal.
        var answered = false

        var presentationID: Presentation.ID { Presentation.ID(bundleID: bundleID, identifier: identifier) }
    }

    static let limit = 1000

    private var byServerID: [UInt32: Bubble] = [:]
    private var byPresentation: [Presentation.ID: UInt32] = [:]

    init() {}

    subscript(serverID: UInt32) -> Bubble? { byServerID[serverID] }

    func serverID(of presentation: Presentation.ID) -> UInt32? { byPresentation[presentation] }

    /// Adds `bubble`, replacing the one of the same presentation, if any.
    mutating func insert(_ bubble: Bubble) {
        if let previous = byPresentation[bubble.presentationID] { remove(previous) }
        byServerID[bubble.serverID] = bubble
        byPresentation[bubble.presentationID] = bubble.serverID
        if byServerID.count > Self.limit {
            for oldest in byServerID.keys.sorted().prefix(Self.limit / 10) { remove(oldest) }
        }
    }

    mutating func update(_ bubble: Bubble) {
        guard byServerID[bubble.serverID] != nil else { return }
        byServerID[bubble.serverID] = bubble
    }

    @discardableResult
    mutating func remove(_ serverID: UInt32) -> Bubble? {
        guard let bubble = byServerID.removeValue(forKey: serverID) else { return nil }
        if byPresentation[bubble.presentationID] == serverID { byPresentation[bubble.presentationID] = nil }
        return bubble
    }

    /// Adds the bubbles of `other` that do not collide with these.
    mutating func adopt(_ other: DesktopBubbles) {
        for bubble in other.byServerID.values where byServerID[bubble.serverID] == nil && byPresentation[bubble.presentationID] == nil {
            insert(bubble)
        }
    }

    // Kept as a list of bubbles.
    init(from decoder: any Decoder) throws {
        for bubble in try [Bubble](from: decoder) { insert(bubble) }
    }

    func encode(to encoder: any Encoder) throws {
        try byServerID.values.sorted { $0.serverID < $1.serverID }.encode(to: encoder)
    }
}
