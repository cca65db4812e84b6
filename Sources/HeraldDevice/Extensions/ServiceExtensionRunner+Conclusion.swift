import Foundation
import HeraldSpawn
import UserNotifications

#if canImport(Glibc)
import Glibc
#endif

extension ServiceExtensionRunner {
    /// What to present, from how the process ended and what it left in its result file.
    func conclude(
        process: ServiceExtensionProcess, ending: Ending, request: RequestRecord,
        workspace: ServiceExtensionWorkspace, appGroups: URL, attachments: AttachmentStore
    ) -> ServiceExtensionOutcome {
        let log = process.log
        func original(_ reason: String) -> ServiceExtensionOutcome { Self.original(request, reason, log: log) }
        if process.overflowed {
            return original("the service extension printed more than \(outputLimit) bytes and was killed")
        }
        let result: ServiceExtensionWire.Result
        switch Self.readResult(at: workspace.resultFile, limit: outputLimit - process.logByteCount) {
        case .absent:
            return original(Self.reasonForNoResult(process.termination, ending: ending, budget: budget, grace: grace))
        case .tooLarge(let size):
            return original("the service extension returned \(size) bytes of content; with its log at most \(outputLimit) are allowed")
        case .unreadable(let why):
            return original("the service extension's result cannot be read: \(why)")
        case .data(let data):
            do {
                result = try JSONDecoder().decode(ServiceExtensionWire.Result.self, from: data)
            } catch {
                return original("the service extension's result is not a notification content: \(Self.describe(error))")
            }
        }
        var content = result.content
        if Self.hasAlertText(request.content) && !Self.hasAlertText(content) {
            return original("the service extension's content has no title, subtitle or body; changes that remove the alert text are ignored")
        }
        var dropped: [String] = []
        content.attachments = take(content.attachments, from: workspace, appGroups: appGroups, into: attachments, dropped: &dropped)
        var presented = request
        presented.content = content
        return ServiceExtensionOutcome(
            request: presented, source: ending.expired ? .bestAttemptAfterExpiry : .extensionContent,
            droppedAttachments: dropped, log: log)
    }

    static func hasAlertText(_ content: ContentRecord) -> Bool {
        !content.title.isEmpty || !content.subtitle.isEmpty || !content.body.isEmpty
    }

    static func reasonForNoResult(_ termination: ServiceExtensionProcess.Termination?, ending: Ending, budget: Duration, grace: Duration) -> String {
        if ending.timedOut {
            return
                "the service extension did not call its content handler within \(budget) and \(grace) after serviceExtensionTimeWillExpire(), and was killed"
        }
        switch termination {
        case .exited(let status)? where status != 0:
            return "the service extension exited with status \(status) before calling its content handler"
        case .exited?:
            return "the service extension exited without calling its content handler"
        case let crashed?:
            return "the service extension \(crashed) before calling its content handler"
        case nil:
            return "the service extension did not end when killed"
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context)?, .keyNotFound(_, let context)?, .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return error.localizedDescription
        }
    }
}
