/// The file name of a notification sound, in the app's bundle or its `Library/Sounds` folder.
///
/// ```swift
/// content.sound = UNNotificationSound(named: UNNotificationSoundName("chime.caf"))
/// ```
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    /// The file name.
    public let rawValue: String

    /// A sound name from its file name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A sound name from its file name.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}
