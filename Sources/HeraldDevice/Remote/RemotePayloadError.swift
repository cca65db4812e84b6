/// Why a remote notification's payload cannot be read: it is not JSON, or not a JSON object.
///
/// Everything else a payload may get wrong (a wrong-typed `aps` value) is ignored, as a device does.
package struct RemotePayloadError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The kind of problem; compare with the static constants.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable { case notJSON, notAnObject }
        private let value: Value

        /// The bytes are not JSON (RFC 8259).
        package static let notJSON = Code(value: .notJSON)
        /// The JSON is an array, string, number or null rather than an object.
        package static let notAnObject = Code(value: .notAnObject)

        package var description: String { value.rawValue }
    }

    package var code: Code
    /// What is wrong; never quotes the payload.
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
