package import CoreLocation
package import Foundation

/// The notification engine of one machine: authorization, scheduling, delivery and presentation for any
/// number of apps, over a ``NotificationStore``. Time comes in as arguments (`now:`), so tests drive it
/// without sleeping; ``CenterRuntime`` drives it with the real clock.
package actor LocalEngine {
    /// A notification whose trigger fired, waiting for the app's say (`willPresent`) before ``complete(_:options:)``.
    package struct Fired: Sendable {
        package var bundleID: String
        package var notification: NotificationRecord
        /// How long after its fire date it fired.
        package var lateness: TimeInterval
        /// The apns-id of a remote notification; completing it closes its inbox entry.
        package var apnsID: String?

        package init(bundleID: String, notification: NotificationRecord, lateness: TimeInterval, apnsID: String? = nil) {
            self.bundleID = bundleID
            self.notification = notification
            self.lateness = lateness
            self.apnsID = apnsID
        }
    }

    /// A due request read ahead of its fire date.
    package struct Prepared: Sendable {
        package var bundleID: String
        package var pending: NotificationStore.Pending
    }

    /// At most this many pending requests per app: the soonest-firing are kept.
    package static let pendingLimit = 64

    private let store: NotificationStore
    private var calendar: Calendar
    private let prompt: any AuthorizationPrompt
    private let presenter: any NotificationPresenter
    private let attachments: @Sendable (String) -> AttachmentStore
    private let entitlements: @Sendable (String) -> AppEntitlements
    /// The desktop's notification server holds its own do-not-disturb (a Focus that follows it is on).
    private var desktopDoNotDisturb = false

    /// The store's own queue: the engine's synchronous SQLite calls never block Swift's cooperative threads.
    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        store.executor.asUnownedSerialExecutor()
    }

    package init(
        store: NotificationStore,
        calendar: Calendar,
        prompt: any AuthorizationPrompt,
        presenter: any NotificationPresenter,
        attachments: @escaping @Sendable (String) -> AttachmentStore,
        entitlements: @escaping @Sendable (String) -> AppEntitlements = { _ in [] }
    ) {
        self.store = store
        self.calendar = calendar
        self.prompt = prompt
        self.presenter = presenter
        self.attachments = attachments
        self.entitlements = entitlements
    }

    // MARK: Authorization

    /// The app's settings as the app reads them: `scheduledDeliverySetting` says whether the summary holds it.
    package func settings(of bundleID: String) throws(UNError) -> SettingsRecord {
        var settings = try storedSettings(of: bundleID)
        if settings.allowsDelivery { settings.scheduledDeliverySetting = try storing { try store.summary() }.setting(of: bundleID) }
        return settings
    }

    private func storedSettings(of bundleID: String) throws(UNError) -> SettingsRecord {
        try storing { try store.settings(of: bundleID) } ?? SettingsRecord()
    }

    /// The stored answer, or the person's (asked once). Provisional authorization is granted without asking.
    ///
    /// - Throws: `notificationsNotAllowed` when nobody could answer; the status stays not determined.
    package func requestAuthorization(of bundleID: String, options: UNAuthorizationOptions) async throws(UNError) -> Bool {
        let current = try storedSettings(of: bundleID)
        guard current.authorizationStatus == .notDetermined else { return current.allowsDelivery }
        let allowed: Bool
        if options.contains(.provisional) {
            allowed = true
        } else if let answer = await prompt.ask(bundleID: bundleID, options: options) {
            allowed = answer
        } else {
            throw UNError(.notificationsNotAllowed, prompt.unanswered(bundleID: bundleID))
        }
        // Another request may have been answered while this one waited for the person.
        let settled = try storedSettings(of: bundleID)
        guard settled.authorizationStatus == .notDetermined else { return settled.allowsDelivery }
        let answered = SettingsRecord.answered(allowed, options: options, entitlements: entitlements(bundleID))
        try storing { try store.setSettings(answered, of: bundleID) }
        return allowed
    }

    // MARK: Focus

    /// The desktop's do-not-disturb went on or off (a Focus that follows the desktop follows it).
    package func setDesktopDoNotDisturb(_ on: Bool) {
        desktopDoNotDisturb = on
    }

    /// The Focus, when it is on at `now`.
    package func activeFocus(at now: Date) throws(UNError) -> Focus? {
        let focus = try storing { try store.focus() }
        return focus.reason(at: now, calendar: calendar, desktopDoNotDisturb: desktopDoNotDisturb) == nil ? nil : focus
    }

    /// Whether the Focus is on at `now`, and why.
    package func focusStatus(at now: Date) throws(UNError) -> Focus.Status? {
        try storing { try store.focus() }.status(at: now, calendar: calendar, desktopDoNotDisturb: desktopDoNotDisturb)
    }

    /// What the Settings app does: `herald device settings`.
    package func changeSettings(of bundleID: String, to settings: SettingsRecord) throws(UNError) {
        try storing { try store.setSettings(settings, of: bundleID) }
    }

    // MARK: Requests

    /// Adds or replaces (same identifier) a request. A request without a trigger fires at once: it is returned
    /// for presentation. When the app is denied, nothing is kept and no error is raised, as on iOS.
    ///
    /// - Throws: `notificationInvalidNoDate` for a bad trigger, `notificationInvalidNoContent` for empty content,
    ///   the attachment errors, or `notificationsNotAllowed` when the store cannot be written.
    package func add(_ request: RequestRecord, of bundleID: String, now: Date) throws(UNError) -> Fired? {
        var request = request
        guard try storedSettings(of: bundleID).authorizationStatus != .denied else { return nil }
        try request.trigger?.trigger.validate()
        let content = request.content
        guard
            !content.title.isEmpty || !content.subtitle.isEmpty || !content.body.isEmpty || content.badge != nil
                || content.sound != nil || !content.attachments.isEmpty
        else {
            throw UNError(.notificationInvalidNoContent, "request \(request.identifier) has no title, subtitle, body, badge, sound or attachment")
        }
        if case .timeInterval(let interval, let repeats, nil)? = request.trigger {
            request.trigger = .timeInterval(interval: interval, repeats: repeats, scheduledDate: now)
        }
        let files = attachments(bundleID)
        request.content.attachments = try files.take(content.attachments)
        if let replaced = try storing({ try store.pendingRequest(of: bundleID, identifier: request.identifier) }) {
            releaseAttachments(of: replaced.request, keeping: request, in: files)
        }
        guard let trigger = request.trigger else {
            try storing { try store.removePending(of: bundleID, identifiers: [request.identifier]) }
            return Fired(bundleID: bundleID, notification: NotificationRecord(date: now, request: request), lateness: 0)
        }
        let nextFire = trigger.trigger.nextFireDate(after: now, scheduledAt: now, calendar: calendar)
        if nextFire == nil, !isLocation(trigger) {
            // A one-shot date in the past is accepted and never fires, as on iOS.
            files.release(request.content.attachments)
            try storing { try store.removePending(of: bundleID, identifiers: [request.identifier]) }
            return nil
        }
        try storing { try store.savePending(NotificationStore.Pending(request: request, nextFire: nextFire, addedAt: now), of: bundleID) }
        try keepWithinLimit(bundleID, in: files)
        return nil
    }

    /// Keeps the soonest-firing ``pendingLimit`` requests; location requests (no date) count after dated ones.
    private func keepWithinLimit(_ bundleID: String, in files: AttachmentStore) throws(UNError) {
        var schedule = try storing { try store.pendingSchedule(of: bundleID) }
        guard schedule.count > Self.pendingLimit else { return }
        schedule.sort { a, b in
            switch (a.nextFire, b.nextFire) {
            case let (x?, y?): x == y ? a.addedAt < b.addedAt : x < y
            case (_?, nil): true
            case (nil, _?): false
            case (nil, nil): a.addedAt < b.addedAt
            }
        }
        let excess = schedule[Self.pendingLimit...].map(\.identifier)
        let dropped = try storing { try store.removePending(of: bundleID, identifiers: excess) }
        for item in dropped { files.release(item.request.content.attachments) }
    }

    package func pending(of bundleID: String) throws(UNError) -> [RequestRecord] {
        try storing { try store.pending(of: bundleID) }.map(\.request)
    }

    package func removePending(of bundleID: String, identifiers: [String]?) throws(UNError) {
        let gone = try storing { try store.removePending(of: bundleID, identifiers: identifiers) }
        let files = attachments(bundleID)
        for item in gone { files.release(item.request.content.attachments) }
    }

    // MARK: Firing

    /// The next time something is due: a pending request's fire date or the scheduled summary's release.
    package func nextFireDate(app: String?) throws(UNError) -> Date? {
        try storing { try store.nextDue(app: app) }
    }

    /// Fires every request due at `now`: one-shot ones leave the pending list, repeating ones are rescheduled
    /// after `now` (missed occurrences fire once). Missed one-shot triggers (the machine was off) fire here.
    package func tick(now: Date, app: String?) throws(UNError) -> [Fired] {
        try releaseSummary(now: now)
        return try settle(try prepare(dueBy: now, app: app), now: now)
    }

    /// Reads (without changing anything) the requests due by `date`, so a scheduler can decode them before
    /// their fire date and ``settle(_:now:)`` them on time.
    package func prepare(dueBy date: Date, app: String?) throws(UNError) -> [Prepared] {
        try storing { try store.due(at: date, app: app) }.map { Prepared(bundleID: $0.bundleID, pending: $0.pending) }
    }

    /// Fires prepared requests at `now`: one-shot ones leave the pending list, repeating ones are rescheduled
    /// after `now`; any removed or replaced since they were prepared are skipped.
    package func settle(_ prepared: [Prepared], now: Date) throws(UNError) -> [Fired] {
        var candidates: [(Fired, NotificationStore.Settlement)] = []
        for item in prepared {
            guard let fireDate = item.pending.nextFire, fireDate <= now, let trigger = item.pending.request.trigger?.trigger else { continue }
            let next = trigger.repeats ? trigger.nextFireDate(after: now, scheduledAt: item.pending.addedAt, calendar: calendar) : nil
            candidates.append(
                (
                    Fired(
                        bundleID: item.bundleID, notification: NotificationRecord(date: now, request: item.pending.request),
                        lateness: now.timeIntervalSince(fireDate)),
                    NotificationStore.Settlement(
                        bundleID: item.bundleID, identifier: item.pending.request.identifier, firedDate: fireDate, nextFire: next)
                ))
        }
        guard !candidates.isEmpty else { return [] }
        let stillPending = try storing { try store.settle(candidates.map(\.1)) }
        return zip(candidates, stillPending).filter(\.1).map(\.0.0)
    }

    /// Recomputes every calendar request's next fire date with `calendar` (the system time zone changed).
    package func reschedule(now: Date, calendar: Calendar, app: String?) throws(UNError) {
        self.calendar = calendar
        for (bundleID, item) in try storing({ try store.calendarRequests(app: app) }) {
            guard let trigger = item.request.trigger?.trigger else { continue }
            let next = trigger.nextFireDate(after: now, scheduledAt: item.addedAt, calendar: calendar)
            try storing { try store.updatePending(of: bundleID, identifier: item.request.identifier, nextFire: next, inside: item.inside) }
        }
    }

    /// A new location: location requests whose region was entered (notifyOnEntry) or left (notifyOnExit) fire.
    package func updateLocation(_ coordinate: CLLocationCoordinate2D, now: Date, app: String?) throws(UNError) -> [Fired] {
        var fired: [Fired] = []
        for (bundleID, item) in try storing({ try store.locationRequests(app: app) }) {
            guard case .location(let regionRecord, let repeats)? = item.request.trigger,
                let region = regionRecord.region as? CLCircularRegion
            else { continue }
            let inside = region.contains(coordinate)
            let identifier = item.request.identifier
            if let was = item.inside, was != inside, inside ? region.notifyOnEntry : region.notifyOnExit {
                fired.append(Fired(bundleID: bundleID, notification: NotificationRecord(date: now, request: item.request), lateness: 0))
                if !repeats {
                    try storing { try store.removePending(of: bundleID, identifiers: [identifier]) }
                    continue
                }
            }
            try storing { try store.updatePending(of: bundleID, identifier: identifier, nextFire: nil, inside: inside) }
        }
        return fired
    }

    /// Delivers what fired as the app (or, for an app not running, its settings) allow: `.list` keeps it in
    /// the delivered list (replacing one with the same identifier, moved to the top), `.banner` shows it,
    /// `.badge` sets the content's badge. Nothing happens for an app that is not authorized.
    package func complete(_ fired: Fired, options: UNNotificationPresentationOptions) throws(UNError) {
        try complete([(fired, options)])
    }

    /// Completes `batch` in order: every store change in one transaction (a thousand requests falling due at
    /// one second cost one commit, not a thousand).
    ///
    /// A local notification's card goes up before that transaction: its firing is already committed (it will not
    /// fire again), and the delivered list follows within milliseconds. A remote one's card waits for the commit
    /// that closes its inbox entry, so a crash in between cannot show it twice.
    package func complete(_ batch: [(Fired, UNNotificationPresentationOptions)]) throws(UNError) {
        try complete(batch, at: Date())
    }

    /// Completes `batch` as at `now` (which decides whether the Focus is on).
    package func complete(_ batch: [(Fired, UNNotificationPresentationOptions)], at now: Date) throws(UNError) {
        let settingsOfApp = try storing { try store.settings(of: Set(batch.map(\.0.bundleID))) }
        let focus = try activeFocus(at: now)
        let summary = try storing { try store.summary() }
        var completions: [NotificationStore.Completion] = []
        var remoteCards: [NotificationCard] = []
        for (fired, options) in batch {
            let settings = settingsOfApp[fired.bundleID] ?? SettingsRecord()
            let request = fired.notification.request
            var completion = NotificationStore.Completion(bundleID: fired.bundleID, remoteID: fired.apnsID)
            guard settings.allowsDelivery else {
                attachments(fired.bundleID).release(request.content.attachments)
                completions.append(completion)
                continue
            }
            let listed = !options.isDisjoint(with: [.list, .alert]) && settings.notificationCenterSetting != .disabled
            let style = NotificationCard.Style(
                content: request.content, bundleID: fired.bundleID, settings: settings, options: options, focus: focus)
            if listed {
                completion.deliver = fired.notification
                completion.holdUntil = summaryRelease(of: fired.bundleID, style: style, settings: settings, summary: summary, now: now)
            } else {
                attachments(fired.bundleID).release(request.content.attachments)
            }
            if options.contains(.badge), settings.badgeSetting != .disabled, let badge = request.content.badge {
                completion.badge = badge
            }
            completions.append(completion)
            let banner = !options.isDisjoint(with: [.banner, .alert]) && settings.alertSetting != .disabled
            // Presented when it shows a banner or joins the list (the list's surfaces show it; the desktop only a banner).
            if completion.holdUntil == nil, banner || listed {
                var card = NotificationCard(fired.notification, bundleID: fired.bundleID, apnsID: fired.apnsID)
                card.style = style
                card.style.showsBanner = banner
                if fired.apnsID == nil { presenter.present(card) } else { remoteCards.append(card) }
            }
        }
        let replaced = try storing { try store.complete(completions) }
        for ((fired, _), replaced) in zip(batch, replaced) {
            guard let replaced else { continue }
            releaseAttachments(of: replaced.request, keeping: fired.notification.request, in: attachments(fired.bundleID))
        }
        for card in remoteCards { presenter.present(card) }
        for completion in completions {
            if let badge = completion.badge { presenter.setBadge(badge, of: completion.bundleID) }
        }
    }

    /// When a notification of `bundleID` delivered now waits for the summary: the summary's next time, for a passive
    /// or active one of an app the summary holds; nil (at once) for the rest, as iOS delivers time-sensitive and
    /// critical ones and direct messages.
    private func summaryRelease(
        of bundleID: String, style: NotificationCard.Style, settings: SettingsRecord, summary: ScheduledSummary, now: Date
    ) -> Date? {
        guard summary.holds(bundleID), [.passive, .active].contains(style.interruptionLevel) else { return nil }
        // Direct messages arrive at once while the app's Direct Messages setting is on.
        if style.isCommunication, settings.directMessagesSetting == .enabled { return nil }
        return summary.next(after: now, calendar: calendar)
    }

    // MARK: Scheduled summary

    /// Delivers the summary that is due at `now` (or, with the summary turned off, everything it held): the held
    /// notifications join the delivered list and the presenters get them as one ``NotificationSummary``.
    package func releaseSummary(now: Date) throws(UNError) {
        // Nothing held (the usual case) costs one read.
        guard let earliest = try storing({ try store.earliestRelease() }) else { return }
        let summary = try storing { try store.summary() }
        guard !summary.isOn || earliest <= now else { return }
        let released = try storing { try store.releaseHeld(dueBy: summary.isOn ? now : nil) }
        guard !released.isEmpty else { return }
        let settingsOfApp = try storing { try store.settings(of: Set(released.map(\.bundleID))) }
        var cards: [NotificationCard] = []
        for item in released {
            if let replaced = item.replaced {
                releaseAttachments(of: replaced.request, keeping: item.notification.request, in: attachments(item.bundleID))
            }
            var card = NotificationCard(item.notification, bundleID: item.bundleID)
            card.style = NotificationCard.Style(
                content: item.notification.request.content, bundleID: item.bundleID,
                settings: settingsOfApp[item.bundleID] ?? SettingsRecord(), options: [.list])
            card.style.inSummary = true
            cards.append(card)
        }
        presenter.presentSummary(NotificationSummary(title: ScheduledSummary.title(at: now, calendar: calendar), date: now, cards: cards))
    }

    /// Moves the store's write-ahead log into its file; the scheduler calls it between batches.
    package func checkpoint() throws(UNError) {
        try storing { try store.checkpoint() }
    }

    // MARK: Delivered, categories, badge

    package func delivered(of bundleID: String) throws(UNError) -> [NotificationRecord] {
        try storing { try store.delivered(of: bundleID) }
    }

    /// Takes a notification the person answered out of the list. Its attachment files stay until the app has been
    /// told (``releaseAttachments(of:app:)``), so that `didReceive` can still open them, as on iOS.
    package func removeAnswered(_ notification: NotificationRecord, of bundleID: String) throws(UNError) {
        try storing { try store.removeDelivered(of: bundleID, identifiers: [notification.request.identifier]) }
        presenter.withdraw(bundleID: bundleID, identifiers: [notification.request.identifier])
    }

    /// Deletes a notification's attachment files.
    package func releaseAttachments(of notification: NotificationRecord, app bundleID: String) {
        attachments(bundleID).release(notification.request.content.attachments)
    }

    package func removeDelivered(of bundleID: String, identifiers: [String]?) throws(UNError) {
        let removed = try storing { try store.removeDelivered(of: bundleID, identifiers: identifiers) }
        let files = attachments(bundleID)
        for notification in removed { files.release(notification.request.content.attachments) }
        if !removed.isEmpty { presenter.withdraw(bundleID: bundleID, identifiers: removed.map(\.request.identifier)) }
    }

    package func categories(of bundleID: String) throws(UNError) -> [CategoryRecord] {
        try storing { try store.categories(of: bundleID) }
    }

    package func setCategories(_ categories: [CategoryRecord], of bundleID: String) throws(UNError) {
        try storing { try store.setCategories(categories, of: bundleID) }
    }

    package func badge(of bundleID: String) throws(UNError) -> Int {
        try storing { try store.badge(of: bundleID) }
    }

    /// - Throws: `badgeInputInvalid` for a negative count.
    package func setBadge(_ count: Int, of bundleID: String) throws(UNError) {
        guard count >= 0 else { throw UNError(.badgeInputInvalid, "a badge count cannot be negative (\(count))") }
        try storing { try store.setBadge(count, of: bundleID) }
        presenter.setBadge(count, of: bundleID)
    }

    // MARK: Helpers

    private func isLocation(_ trigger: TriggerRecord) -> Bool {
        if case .location = trigger { true } else { false }
    }

    private func releaseAttachments(of old: RequestRecord, keeping new: RequestRecord, in files: AttachmentStore) {
        let kept = Set(new.content.attachments.map(\.url))
        files.release(old.content.attachments.filter { !kept.contains($0.url) })
    }

    /// Store failures travel as UNError (the engine's error type) carrying a ``NotificationStoreError``, which is what
    /// apps are given.
    @discardableResult
    private func storing<Value>(_ body: () throws -> Value) throws(UNError) -> Value {
        do {
            return try body()
        } catch {
            throw UNError(storeFailure: NotificationStoreError(error))
        }
    }
}
