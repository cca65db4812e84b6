/// A token retired (its app unregistered, or the token expired), numbered in the order retirements committed, so that
/// a gateway can announce each one once — to the console's event stream and to the device that held the token —
/// whichever process retired it: a device over its link, the console, or `herald tokens retire` beside the gateway.
public struct TokenRetirement: Sendable, Hashable {
    /// Its number: each retirement's is higher than every earlier one's (1, 2, …).
    public var sequence: Int64
    /// The token's record as retired.
    public var device: DeviceRecord

    public init(sequence: Int64, device: DeviceRecord) {
        self.sequence = sequence
        self.device = device
    }
}
