/// Why the installed-app registry (`DATA_DIR/device/apps.json`) could not be read or changed.
package struct InstalledAppsError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and what to do, naming the registry file.
    package var message: String
    package var underlying: (any Error)?

    package init(_ message: String, underlying: (any Error)? = nil) {
        self.message = message
        self.underlying = underlying
    }

    package var description: String { message }
}
