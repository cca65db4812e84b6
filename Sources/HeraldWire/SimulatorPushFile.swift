public import struct Foundation.Data

/// A `.apns` file as `xcrun simctl push` and Xcode take it: a payload with an optional top-level
/// `"Simulator Target Bundle"` naming the app. APNs never sees that key.
///
/// ```swift
/// let file = try SimulatorPushFile(data: Data(contentsOf: url))
/// file.targetBundle   // "com.example.app"
/// file.payload        // the JSON without "Simulator Target Bundle"
/// ```
public struct SimulatorPushFile: Sendable, Hashable {
    public static let targetBundleKey = "Simulator Target Bundle"

    /// The bundle id the file names, if any.
    public var targetBundle: String?
    /// The payload to send: the file's JSON without ``targetBundleKey``, or the bytes unchanged when the key is absent.
    public var payload: Data

    /// Reads the file's JSON. Bytes that are not a JSON object are kept as the payload unchanged, so the
    /// usual payload checks report what is wrong with them.
    public init(data: Data) {
        guard case .object(var root)? = try? JSONValue.parse(data), let target = root[Self.targetBundleKey] else {
            targetBundle = nil
            payload = data
            return
        }
        targetBundle = target.stringValue
        root[Self.targetBundleKey] = nil
        payload = JSONValue.object(root).encoded()
    }
}
