/// What a fuzz check found: a promise of the code under test that an input broke, in words. The fuzz targets crash on
/// it (libFuzzer keeps the input); `FuzzCorpusTests` in the root package reports it for a corpus file.
package struct FuzzFinding: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// One fuzz target's check: runs the code under test on `bytes` and throws what it found.
package typealias FuzzCheck = @Sendable ([UInt8]) throws(FuzzFinding) -> Void

/// Every fuzz target's check, by the target's name (its corpus is `Fuzz/Corpus/NAME`).
package let fuzzChecks: [String: FuzzCheck] = [
    "FuzzJSON": JSONFuzzCheck.run, "FuzzPayload": PayloadFuzzCheck.run, "FuzzProviderToken": ProviderTokenFuzzCheck.run,
    "FuzzDeviceLink": DeviceLinkFuzzCheck.run, "FuzzSimulatorPushFile": SimulatorPushFileFuzzCheck.run,
    "FuzzRequestHeaders": RequestHeadersFuzzCheck.run, "FuzzDaemonSocket": DaemonSocketFuzzCheck.run,
    "FuzzAttachments": AttachmentsFuzzCheck.run, "FuzzInfoPlist": InfoPlistFuzzCheck.run,
]
