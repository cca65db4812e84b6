/// A stored `UNNotificationSound`.
package struct SoundRecord: Codable, Hashable, Sendable {
    /// The sound file's name; nil for the default sound.
    package var name: String?
    package var isCritical: Bool
    package var criticalVolume: Float?
    /// A ringtone (iOS 15.2); absent (nil) in records written before ringtones, and for other sounds.
    package var isRingtone: Bool?

    package init(_ sound: UNNotificationSound) {
        name = sound.name?.rawValue
        isCritical = sound.isCritical
        criticalVolume = sound.criticalVolume
        isRingtone = sound.isRingtone ? true : nil
    }

    package var sound: UNNotificationSound {
        let ringtone = isRingtone == true
        if name == nil, criticalVolume == nil {
            return ringtone ? .defaultRingtone : isCritical ? .defaultCritical : .default
        }
        return UNNotificationSound(
            name: name.map(UNNotificationSoundName.init(rawValue:)), isCritical: isCritical, criticalVolume: criticalVolume, isRingtone: ringtone)
    }
}
