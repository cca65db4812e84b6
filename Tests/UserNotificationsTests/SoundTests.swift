import Testing

@testable import UserNotifications

@Suite struct SoundTests {
    @Test func defaultSoundsAreShared() {
        #expect(UNNotificationSound.default === UNNotificationSound.default)
        #expect(UNNotificationSound.default.name == nil && !UNNotificationSound.default.isCritical)
        #expect(UNNotificationSound.defaultCritical.isCritical && UNNotificationSound.defaultCritical.criticalVolume == nil)
        #expect(UNNotificationSound.default != UNNotificationSound.defaultCritical)
    }

    @Test func namedAndCriticalSounds() {
        let name = UNNotificationSoundName("chime.caf")
        #expect(name == UNNotificationSoundName(rawValue: "chime.caf") && name.rawValue == "chime.caf")
        let sound = UNNotificationSound(named: name)
        #expect(sound.name == name && !sound.isCritical)
        #expect(sound == UNNotificationSound(named: UNNotificationSoundName("chime.caf")))
        let critical = UNNotificationSound.criticalSoundNamed(name, withAudioVolume: 0.25)
        #expect(critical.isCritical && critical.criticalVolume == 0.25 && critical.name == name)
        #expect(UNNotificationSound.criticalSoundNamed(name).criticalVolume == nil)
        #expect(UNNotificationSound.defaultCriticalSound(withAudioVolume: 0.5).criticalVolume == 0.5)
    }

    @Test(arguments: [(Float(-1), Float(0)), (2, 1), (0.75, 0.75), (.nan, 1)])
    func criticalVolumeIsClampedToZeroThroughOne(volume: Float, expected: Float) {
        #expect(UNNotificationSound.defaultCriticalSound(withAudioVolume: volume).criticalVolume == expected)
    }
}
