package import Foundation

/// The messages between the device daemon and a service extension process (docs/service-extensions.md).
///
/// Daemon → extension, on its standard input, one JSON object per line: first `{"request": RequestRecord}`, then
/// possibly `{"timeWillExpire": true}`. Extension → daemon: one JSON object, `{"content": ContentRecord}`,
/// written atomically to the file named by `HERALD_SERVICE_EXTENSION_RESULT`, after which the extension exits 0.
/// Everything the extension prints on standard output or error is its log.
package enum ServiceExtensionWire {
    /// The environment variable naming the file the extension writes its result to. Without it (an extension
    /// started by hand), the result is printed on standard output as one line.
    package static let resultPathVariable = "HERALD_SERVICE_EXTENSION_RESULT"

    /// One line on the extension's standard input.
    package struct Input: Codable, Sendable, Equatable {
        /// The notification's request: the first line, exactly once.
        package var request: RequestRecord?
        /// The time to call the content handler is nearly up.
        package var timeWillExpire: Bool?

        package init(request: RequestRecord? = nil, timeWillExpire: Bool? = nil) {
            self.request = request
            self.timeWillExpire = timeWillExpire
        }

        /// The message as one line of JSON, newline included.
        package func line() throws -> Data {
            try JSONEncoder().encode(self) + Data("\n".utf8)
        }
    }

    /// What the extension's content handler was called with.
    package struct Result: Codable, Sendable, Equatable {
        package var content: ContentRecord

        package init(content: ContentRecord) {
            self.content = content
        }
    }
}
