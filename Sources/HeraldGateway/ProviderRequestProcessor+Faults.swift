import Foundation
import HeraldStore
import HeraldWire
import NIOCore

extension ProviderRequestProcessor {
    /// Does what `rule` says to a request the gateway would have accepted (docs/faults.md). The request is kept in the
    /// delivery log, marked with what the rule did, and never delivered unless the rule only delays its answer or sends
    /// GOAWAY after it; the event stream says `faulted`, and `/metrics` counts it by action.
    func applyFault(
        _ rule: FaultRule, to notification: StoredNotification, apnsID: UUID, eventLoop: any EventLoop, finish: @escaping Answer
    ) {
        let now = clock.now()
        var marked = notification
        marked.response = NotificationResponse(action: NotificationResponse.faulted, text: rule.summary, at: now)
        if rule.discardsNotification { marked.delivery = Delivery(state: .discarded, discardedAt: now, discardReason: .faulted) }
        metrics.faultApplied(rule.actionKind)
        events.publish { [DeliveryEvents.faulted(marked, rule: rule)] }
        let (uniqueID, store) = (marked.uniqueID, store)
        let shownUniqueID = configuration.environment == .development ? uniqueID : nil
        writer.submit(marked, on: eventLoop) { failure in
            if let failure { return finish(ProviderResponse(apnsID: apnsID, rejection: failure)) }
            Task { try? await store.recordFault(rule.summary, uniqueID: uniqueID, at: now) }
            var response = ProviderResponse(apnsID: apnsID, uniqueID: shownUniqueID)
            switch rule.action {
            case .answer(let reason, let timestamp):
                let milliseconds = timestamp ?? Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
                response = ProviderResponse(
                    apnsID: apnsID, rejection: Rejection(reason, rule.summary), timestamp: reason.status == 410 ? milliseconds : nil)
            case .delay(let milliseconds):
                eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(milliseconds))) { finish(response) }
                return
            case .reset: response.connectionFault = .reset
            case .close: response.connectionFault = .close
            case .stall: response.connectionFault = .stall
            case .goAway(let reason, let after): response.connectionFault = .goAway(reason, after: after)
            case .drop: break
            }
            finish(response)
        }
    }
}
