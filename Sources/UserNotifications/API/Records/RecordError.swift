/// Why a value cannot become a stored record (for example a `userInfo` value that is not a property-list value).
package struct RecordError: Error, CustomStringConvertible, Equatable {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
