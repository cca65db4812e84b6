import Foundation
import UserNotifications

extension DeviceDaemon {
    /// Follows the machine's state, read each second. The Focus: `herald device focus` writes it to the store, its
    /// schedules and "until" turn it on and off, the desktop's do-not-disturb may hold it (asked of the notification
    /// server each time); every change goes to the presenters (the page shows it) and to whoever runs the daemon. The
    /// engine reads it itself for each delivery, so none waits for this.
    ///
    /// A change of the scheduled summary (`herald device summary`) wakes the scheduler, which releases what a summary
    /// turned off held and waits for the new times.
    func followDeviceState(every interval: Duration = .seconds(1)) async {
        var last: Focus.Status?
        var first = true
        var lastSummary: ScheduledSummary?
        while !Task.isCancelled {
            if let summary = try? await store.perform({ try $0.summary() }), summary != lastSummary {
                if lastSummary != nil { scheduler.wake() }
                lastSummary = summary
            }
            if let desktop {
                // A server that keeps no do-not-disturb of its own, or is gone, holds no Focus on.
                await engine.setDesktopDoNotDisturb(await desktop.doNotDisturb() ?? false)
            }
            do throws(UNError) {
                let status = try await engine.focusStatus(at: Date())
                if first || status != last {
                    if !first || status != nil { report(.focus(status)) }
                    presentation.focusChanged(status)
                    (last, first) = (status, false)
                }
            } catch {
                // The store is busy or unreadable for a moment: the next second reads it again.
            }
            try? await Task.sleep(for: interval)
        }
    }
}
