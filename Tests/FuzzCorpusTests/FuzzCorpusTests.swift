import Foundation
import Testing

/// Every fuzz target's seed corpus (`Fuzz/Corpus/TARGET`, which keeps the inputs that once crashed a parser) replayed
/// through that target's own check (`FuzzChecks`, the same files the fuzz targets run), so CI holds every parser to
/// what fuzzing established without the instrumented build; `scripts/fuzz.sh` is for fuzzing itself.
@Suite struct FuzzCorpusTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test(arguments: fuzzChecks.keys.sorted())
    func everySeedPassesItsTargetsCheck(target: String) throws {
        let check = try #require(fuzzChecks[target])
        let files = try FileManager.default.contentsOfDirectory(
            at: Self.corpora.appendingPathComponent(target), includingPropertiesForKeys: nil)
        #expect(!files.isEmpty, "\(target) has no seeds")
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) {
            do {
                try check(Array(try Data(contentsOf: file)))
            } catch {
                Issue.record("\(target), seed \(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test func everyCorpusHasACheck() throws {
        let corpora = try FileManager.default.contentsOfDirectory(atPath: Self.corpora.path).sorted()
        #expect(corpora == fuzzChecks.keys.sorted())
    }
}
