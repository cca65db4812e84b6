import ArgumentParser
import Foundation
import UserNotifications

/// The machine's notification store (`DATA_DIR/notifications.sqlite`), as `herald device settings`, `focus` and
/// `summary` change it while the daemon runs: opened, or an error saying which file could not be.
func openDeviceStore(dataDirectory: String) throws -> NotificationStore {
    let path = AppIdentity(bundleIdentifier: "", dataDirectory: URL(fileURLWithPath: dataDirectory)).storePath
    let store: NotificationStore
    do {
        store = try NotificationStore(path: path)
    } catch {
        throw ValidationError("cannot open \(path): \(error)")
    }
    if let aside = store.movedAside {
        FileHandle.standardError.write(Data("herald: \(path) was unreadable; moved to \(aside)\n".utf8))
    }
    return store
}
