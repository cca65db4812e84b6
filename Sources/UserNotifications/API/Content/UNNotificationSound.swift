public import Foundation

/// The sound played when a notification is presented.
///
/// ```swift
/// content.sound = .default
/// content.sound = UNNotificationSound(named: UNNotificationSoundName("chime.caf"))
/// content.sound = .defaultCriticalSound(withAudioVolume: 0.8)
/// ```
open class UNNotificationSound: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    /// The sound file's name; nil for the system's default sound.
    package let name: UNNotificationSoundName?
    /// Whether the sound is a critical alert (plays past Do Not Disturb and the ringer switch).
    package let isCritical: Bool
    /// The volume of a critical alert, 0…1; nil for the system's choice.
    package let criticalVolume: Float?
    /// A ringtone (iOS 15.2), as a communication notification for a call plays one.
    package let isRingtone: Bool

    package init(name: UNNotificationSoundName?, isCritical: Bool, criticalVolume: Float?, isRingtone: Bool = false) {
        self.name = name
        self.isCritical = isCritical
        self.criticalVolume = criticalVolume.map { $0.isNaN ? 1 : min(max($0, 0), 1) }
        self.isRingtone = isRingtone
    }

    /// The sound of a file in the app's bundle or its `Library/Sounds` folder.
    public convenience init(named name: UNNotificationSoundName) {
        self.init(name: name, isCritical: false, criticalVolume: nil)
    }

    private static let defaultSound = UNNotificationSound(name: nil, isCritical: false, criticalVolume: nil)
    private static let defaultCriticalSound = UNNotificationSound(name: nil, isCritical: true, criticalVolume: nil)
    private static let defaultRingtoneSound = UNNotificationSound(name: nil, isCritical: false, criticalVolume: nil, isRingtone: true)

    /// The system's default notification sound.
    open class var `default`: UNNotificationSound { defaultSound }

    /// The system's default sound for critical alerts.
    open class var defaultCritical: UNNotificationSound { defaultCriticalSound }

    /// The system's default ringtone (iOS 15.2).
    open class var defaultRingtone: UNNotificationSound { defaultRingtoneSound }

    /// A ringtone from a file in the app's bundle or its `Library/Sounds` folder (iOS 15.2).
    open class func ringtoneSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(name: name, isCritical: false, criticalVolume: nil, isRingtone: true)
    }

    /// The default critical-alert sound at `volume` (0…1; clamped).
    open class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: nil, isCritical: true, criticalVolume: volume)
    }

    /// A critical-alert sound from a file, at the system's volume.
    open class func criticalSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(name: name, isCritical: true, criticalVolume: nil)
    }

    /// A critical-alert sound from a file at `volume` (0…1; clamped).
    open class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: name, isCritical: true, criticalVolume: volume)
    }

    /// The sound itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Sounds are equal when name, criticality and volume are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationSound else { return false }
        return name == other.name && isCritical == other.isCritical && criticalVolume == other.criticalVolume
            && isRingtone == other.isRingtone
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(name)
        hasher.combine(isCritical)
        hasher.combine(criticalVolume)
        hasher.combine(isRingtone)
        return hasher.finalize()
    }
}
