import Foundation
import Testing

/// The seed articles' samples in `Examples/`, run as programs with their own data directory.
@Suite struct ExamplesTests {
    struct Outcome {
        var status: Int32
        var output: String
        var presented: String
    }

    private func run(_ example: String, environment: [String: String] = [:]) async throws -> Outcome {
        let data = CommandRunTests.temporaryDirectory()
        let process = try HeraldProcess.start(
            [], executable: HeraldProcess.built(example),
            environment: [
                "HERALD_DATA_DIR": data, "HERALD_AUTHORIZATION": "grant", "HERALD_PRESENTER": "json",
            ].merging(environment) { $1 })
        let status = await process.exitStatus()
        return Outcome(status: status, output: process.output, presented: process.errorOutput)
    }

    @Test func timeInterval() async throws {
        let run = try await run("TimeIntervalExample")
        #expect(run.status == 0, "\(run.presented)")
        #expect(run.output.contains("granted true"))
        #expect(run.output.contains("willPresent com.onevcat.usernotification.myFirstNotification"))
        #expect(run.output.contains(#"delivered ["com.onevcat.usernotification.myFirstNotification"]"#))
        #expect(run.presented.contains(#""title":"Time Interval Notification""#) && run.presented.contains(#""topic":"TimeIntervalExample""#))
    }

    /// An app without a daemon has no desktop: naming it says where desktop notifications come from, and the
    /// next name in the list is used.
    @Test func anAppAskedForTheDesktopWithoutADaemonSaysSoAndPrints() async throws {
        let run = try await run("TimeIntervalExample", environment: ["HERALD_PRESENTER": "desktop,json"])
        #expect(run.status == 0, "\(run.presented)")
        #expect(run.presented.contains("HERALD_PRESENTER=desktop: desktop notifications come from the device daemon; start `herald device`"))
        #expect(run.presented.contains(#""title":"Time Interval Notification""#), "\(run.presented)")
    }

    @Test func calendar() async throws {
        let run = try await run("CalendarExample")
        #expect(run.status == 0, "\(run.presented)")
        #expect(run.output.contains("weekly next weekday=2 hour=8 minute=0"))
        #expect(run.output.contains(#"delivered ["soon"]"#) && run.output.contains(#"pending ["weekly"]"#))
    }

    @Test func management() async throws {
        let run = try await run("ManagementExample")
        #expect(run.status == 0, "\(run.presented)")
        #expect(run.output.contains(#"pending ["a=A, updated", "b=B"]"#))
        #expect(run.output.contains(#"pending after remove ["a"]"#))
        #expect(run.output.contains(#"delivered ["now1=Now 1, updated", "now2=Now 2"]"#))
        #expect(run.output.contains(#"delivered after remove ["now1"]"#))
        #expect(run.output.contains("cleared 0 0"))
    }

    @Test func textInputCategory() async throws {
        let run = try await run("TextInputCategoryExample")
        #expect(run.status == 0)
        #expect(run.output.contains("category saySomethingCategory customDismiss=true"))
        #expect(run.output.contains("text action.input button=Send placeholder=What do you want to say..."))
        #expect(run.output.contains("action action.cancel destructive=true"))
    }

    @Test func mediaAttachment() async throws {
        let run = try await run("MediaAttachmentExample")
        #expect(run.status == 0, "\(run.presented)")
        #expect(run.output.contains("type public.png"))
        #expect(run.output.contains("moved true") && run.output.contains("stored true"))
        #expect(run.output.contains("refused true UNErrorDomain 101"))
    }

    @Test func notificationService() async throws {
        let run = try await run("NotificationServiceExample")
        #expect(run.status == 0)
        #expect(run.output.contains("title Remote [modified]") && run.output.contains("original Remote"))
    }

    @Test func aDeniedAppSchedulesNothing() async throws {
        let run = try await run("TimeIntervalExample", environment: ["HERALD_AUTHORIZATION": "deny"])
        #expect(run.status == 0)
        #expect(run.output.contains("granted false"))
        #expect(run.output.contains("pending []") && run.output.contains("delivered []"))
    }
}
