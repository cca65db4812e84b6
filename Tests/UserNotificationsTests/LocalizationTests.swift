import Foundation
import HeraldTesting
import Testing

@testable import UserNotifications

@Suite struct StringFormatTests {
    @Test(arguments: [
        ("%@ has %d messages", ["Ann", 3] as [any Sendable], "Ann has 3 messages"),
        ("%2$@ before %1$@", ["one", "two"], "two before one"),
        ("%.2f km", [3.14159], "3.14 km"),
        ("100%% sure", [], "100% sure"),
        ("%@ and %@", ["x"], "x and %@"),
        ("%d items", ["abc"], "abc items"),
        ("%@", [42], "42"),
        ("%05d", [42], "00042"),
        ("%x", [255], "ff"),
        ("%ld and %lu", [5, 6], "5 and 6"),
        ("%lld", [Int64.max], "9223372036854775807"),
        ("%d", ["12"], "12"),
        ("%i%%", [NSNumber(value: 7)], "7%"),
        ("ends with %", [1], "ends with %"),
        ("%@", [true], "1"),  // a Bool is an NSNumber to %@, as on iOS
        ("%.1f", [2], "2.0"),
        ("%-4d|", [7], "7   |"),
        ("%c", [65], "A"),
        ("%s", ["text"], "text"),
        ("no specifiers", ["ignored"], "no specifiers"),
        ("%3$@", ["a"], "%3$@"),
        ("%q", ["a"], "%q"),
    ])
    func formatsWithoutTrustingTheArguments(format: String, arguments: [any Sendable], expected: String) {
        #expect(NotificationStringFormat.format(format, arguments: arguments) == expected)
    }
}

@Suite(.serialized) struct LocalizedStringTests {
    func bundle(_ strings: String) throws -> (TemporaryDirectory, Bundle) {
        let directory = try TemporaryDirectory()
        let lproj = directory.url.appendingPathComponent("en.lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        try Data(strings.utf8).write(to: lproj.appendingPathComponent("Localizable.strings"))
        return (directory, try #require(Bundle(path: directory.url.path)))
    }

    @Test func looksUpAndFormatsFromTheBundle() throws {
        let (directory, bundle) = try bundle(#""NEW_MESSAGES" = "%@ sent you %d messages";"# + "\n" + #""HELLO" = "Hello";"#)
        _ = directory
        #expect(UserNotificationStrings.localizedString(forKey: "NEW_MESSAGES", arguments: ["Ann", 2], in: bundle) == "Ann sent you 2 messages")
        #expect(UserNotificationStrings.localizedString(forKey: "HELLO", arguments: nil, in: bundle) == "Hello")
        #expect(UserNotificationStrings.localizedString(forKey: "MISSING", arguments: nil, in: bundle) == "MISSING")
        #expect(UserNotificationStrings.localizedString(forKey: "Missing %@", arguments: ["key"], in: bundle) == "Missing key")
        #expect(UserNotificationStrings.localizedString(forKey: "NEW_MESSAGES", arguments: nil, in: bundle) == "%@ sent you %d messages")
    }

    @Test func thePublicFunctionsUseTheLookupBundle() throws {
        let (directory, bundle) = try bundle(#""GREETING" = "Hi %@";"#)
        _ = directory
        let original = UserNotificationStrings.lookupBundle
        defer { UserNotificationStrings.lookupBundle = original }
        #expect(NSString.localizedUserNotificationString(forKey: "GREETING", arguments: ["Bo"]) == "GREETING")
        UserNotificationStrings.lookupBundle = bundle
        #expect(NSString.localizedUserNotificationString(forKey: "GREETING", arguments: ["Bo"]) == "Hi Bo")
        #expect(String.localizedUserNotificationString(forKey: "GREETING", arguments: ["Cy"]) == "Hi Cy")
    }
}
