extension StoredNotification {
    /// The delivery state a notification starts in: a virtual device keeps everything for the log; an
    /// offline device stores it unless its expiration is 0; an online device gets it pushed.
    package var admission: Delivery {
        // A request a fault rule took arrives discarded and stays so.
        if delivery.discardReason == .faulted { return delivery }
        guard deviceID != nil else { return Delivery(storedAt: receivedAt) }
        guard offlinePolicy != nil else { return Delivery() }
        if expiration == 0 {
            return Delivery(state: .discarded, discardedAt: receivedAt, discardReason: .expired)
        }
        return Delivery(storedAt: receivedAt)
    }
}
