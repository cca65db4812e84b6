/// An APNs environment: keys, device tokens and certificates belong to exactly one.
public enum APNsEnvironment: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case development
    case production

    public var description: String { rawValue }
}
