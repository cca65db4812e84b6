import Foundation
import HeraldTesting
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// `Localizable.strings` files of an app bundle, written as Xcode and people write them.
@Suite struct LocalizedStringsTests {
    private let sample = """
        /* The title of a new-episode notification.
           Spans lines. */
        "NEW_EPISODE" = "Neue Folge: %@";
        // A line comment
        "QUOTED" = "Er sagte \\"Hallo\\"\\nund ging";
        "UNICODE" = "\\U00e9t\\U00e9 ☀️";
        UNQUOTED_KEY = value;
        """

    /// Writes `bytes` as `bundle/<localization>.lproj/Localizable.strings`.
    private func write(_ bytes: Data, _ localization: String, in bundle: URL) throws {
        let lproj = bundle.appendingPathComponent("\(localization).lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        try bytes.write(to: lproj.appendingPathComponent("Localizable.strings"))
    }

    private func utf16(_ text: String, bigEndian: Bool, byteOrderMark: Bool) -> Data {
        var data = byteOrderMark ? Data(bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : Data()
        for unit in text.utf16 {
            let value = bigEndian ? unit.bigEndian : unit.littleEndian
            withUnsafeBytes(of: value) { data.append(contentsOf: $0) }
        }
        return data
    }

    private func expectSample(_ strings: LocalizedStrings, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(strings.string(forKey: "NEW_EPISODE") == "Neue Folge: %@", sourceLocation: sourceLocation)
        #expect(strings.string(forKey: "QUOTED") == "Er sagte \"Hallo\"\nund ging", sourceLocation: sourceLocation)
        #expect(strings.string(forKey: "UNICODE") == "été ☀️", sourceLocation: sourceLocation)
        #expect(strings.string(forKey: "UNQUOTED_KEY") == "value", sourceLocation: sourceLocation)
        #expect(strings.string(forKey: "MISSING") == nil, sourceLocation: sourceLocation)
        #expect(strings.problems.isEmpty, "\(strings.problems)", sourceLocation: sourceLocation)
    }

    /// A strings file may be a binary plist; one holding a set is refused rather than crashing PropertyListSerialization.
    @Test func aBinaryPropertyListHoldingASetIsNotRead() throws {
        #expect(throws: LocalizedStrings.StringsFileError.self) { try LocalizedStrings.parse(BinaryPropertyListSample.dictionaryWithASet) }
    }

    @Test func readsUTF8WithComments() throws {
        let bundle = try TemporaryDirectory()
        try write(Data(sample.utf8), "en", in: bundle.url)
        expectSample(LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["en"]))
    }

    @Test func readsUTF8WithAByteOrderMark() throws {
        let bundle = try TemporaryDirectory()
        try write(Data([0xEF, 0xBB, 0xBF]) + Data(sample.utf8), "en", in: bundle.url)
        expectSample(LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["en"]))
    }

    @Test(arguments: [(false, true), (true, true), (false, false), (true, false)])
    func readsUTF16(bigEndian: Bool, byteOrderMark: Bool) throws {
        let bundle = try TemporaryDirectory()
        try write(utf16(sample, bigEndian: bigEndian, byteOrderMark: byteOrderMark), "en", in: bundle.url)
        expectSample(LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["en"]))
    }

    @Test func readsAStringsFileCompiledToABinaryPropertyList() throws {
        let bundle = try TemporaryDirectory()
        let binary = try PropertyListSerialization.data(fromPropertyList: ["NEW_EPISODE": "Neue Folge: %@", "COUNT": 3], format: .binary, options: 0)
        try write(binary, "en", in: bundle.url)
        let strings = LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["en"])
        #expect(strings.string(forKey: "NEW_EPISODE") == "Neue Folge: %@")
        #expect(strings.string(forKey: "COUNT") == nil)
    }

    @Test func picksThePreferredLanguageThenBaseThenEnglish() throws {
        let bundle = try TemporaryDirectory()
        try write(Data(#""A" = "de A"; "ONLY_DE" = "nur de";"#.utf8), "de", in: bundle.url)
        try write(Data(#""A" = "base A"; "B" = "base B";"#.utf8), "Base", in: bundle.url)
        try write(Data(#""A" = "en A"; "B" = "en B"; "C" = "en C";"#.utf8), "en", in: bundle.url)
        try write(Data(#""A" = "fr A";"#.utf8), "fr", in: bundle.url)

        let german = LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["de-DE", "fr"])
        #expect(german.localizations == ["de", "Base", "en"])
        #expect(german.string(forKey: "A") == "de A")
        #expect(german.string(forKey: "B") == "base B")
        #expect(german.string(forKey: "C") == "en C")

        let italian = LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["it-IT", "fr-CA"])
        #expect(italian.localizations == ["fr", "Base", "en"])
        #expect(italian.string(forKey: "A") == "fr A")
        #expect(italian.string(forKey: "ONLY_DE") == nil)

        let none = LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["ja"])
        #expect(none.localizations == ["Base", "en"])
        #expect(none.string(forKey: "A") == "base A")
    }

    @Test func matchesRegionsAndScriptsWhateverTheSeparator() throws {
        let bundle = try TemporaryDirectory()
        try write(Data(#""A" = "pt-BR";"#.utf8), "pt_BR", in: bundle.url)
        try write(Data(#""A" = "pt";"#.utf8), "pt", in: bundle.url)
        try write(Data(#""A" = "zh-Hans";"#.utf8), "zh-Hans", in: bundle.url)
        #expect(LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["pt-BR"]).string(forKey: "A") == "pt-BR")
        #expect(LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["pt-PT"]).string(forKey: "A") == "pt")
        #expect(LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["zh-Hans-CN"]).string(forKey: "A") == "zh-Hans")
        #expect(LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["ZH_hans"]).string(forKey: "A") == "zh-Hans")
    }

    @Test func aBrokenFileIsReportedAndTheOthersStillServe() throws {
        let bundle = try TemporaryDirectory()
        try write(Data(#""A" = "de A" "B" = "#.utf8), "de", in: bundle.url)
        try write(Data(#""A" = "en A";"#.utf8), "en", in: bundle.url)
        let strings = LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["de"])
        #expect(strings.string(forKey: "A") == "en A")
        #expect(strings.problems.count == 1)
        #expect(strings.problems.first?.contains("de.lproj/Localizable.strings: not a strings file") == true)
    }

    @Test func aBundleWithoutStringsHasNoneAndEmptyFilesAreFine() throws {
        let bundle = try TemporaryDirectory()
        #expect(LocalizedStrings(bundleDirectory: bundle.url).string(forKey: "A") == nil)
        try write(Data("/* nothing yet */\n".utf8), "en", in: bundle.url)
        try write(Data(), "Base", in: bundle.url)
        let strings = LocalizedStrings(bundleDirectory: bundle.url, preferredLanguages: ["en"])
        #expect(strings.localizations == ["en", "Base"])
        #expect(strings.problems.isEmpty)
        #expect(strings.string(forKey: "A") == nil)
    }
}
