/// A stored `UNNotificationSound`.
package struct SoundRecord: Codable, Hashable, Sendable {
    /// The sound file's name; nil for the default sound.
    package var name: String?
    package var isCritical: Bool
    package var criticalVolume: Float?

    package init(_ sound: UNNotificationSound) {
        name = sound.name?.rawValue
        isCritical = sound.isCritical
        criticalVolume = sound.criticalVolume
    }

    package var sound: UNNotificationSound {
        if name == nil, criticalVolume == nil {
            return isCritical ? .defaultCritical : .default
        }
        return UNNotificationSound(name: name.map(UNNotificationSoundName.init(rawValue:)), isCritical: isCritical, criticalVolume: criticalVolume)
    }
}
