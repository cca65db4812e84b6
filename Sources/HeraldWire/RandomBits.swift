import Synchronization

/// Fast random bits for identifiers: SplitMix64 over a counter seeded once from the system's generator.
///
/// `SystemRandomNumberGenerator` asks the kernel on every call; ids are made several times per request,
/// and they need to be unique and hard to guess, not secret keys.
enum RandomBits {
    private static let seed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let counter = Atomic<UInt64>(0)

    static func next() -> (UInt64, UInt64) {
        let base = counter.add(2, ordering: .relaxed).oldValue
        return (mix(seed &+ base), mix(seed &+ base &+ 1))
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
