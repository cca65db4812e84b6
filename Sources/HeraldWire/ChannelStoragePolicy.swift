/// What APNs keeps of a broadcast channel's messages for devices that are offline: the channel's
/// `message-storage-policy`, chosen when the channel is created and never changed.
public enum ChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nothing: a broadcast reaches the devices online when it is sent (at Apple, a higher publishing budget).
    case noMessageStored = 0
    /// The latest broadcast, for up to 8 hours, for devices that come back.
    case mostRecentMessageStored = 1

    public var description: String {
        switch self {
        case .noMessageStored: "0 (no message stored)"
        case .mostRecentMessageStored: "1 (most recent message stored)"
        }
    }
}
