/// A content's `userInfo`, held in its lock.
///
/// `@unchecked Sendable` over a single `let` of a value-type dictionary, never mutated in place: setting
/// `userInfo` swaps the whole box under the content's lock. Like Apple's, the values must be property-list
/// values (strings, numbers, dates, data, arrays and dictionaries of them), which are immutable; an app that
/// stores a mutable object there shares it at its own risk, as on iOS.
struct UserInfoBox: @unchecked Sendable {
    let dictionary: [AnyHashable: Any]

    init(_ dictionary: [AnyHashable: Any]) {
        self.dictionary = dictionary
    }

    /// Value equality: property-list values compare by value (with `PropertyListValue`'s types, so `true` is
    /// not `1`), other values by `Hashable` equality, other objects by identity.
    func isEqual(to other: UserInfoBox) -> Bool {
        Self.looselyEqual(dictionary, other.dictionary)
    }

    private static func looselyEqual(_ lhs: Any, _ rhs: Any) -> Bool {
        if let left = try? PropertyListValue(lhs), let right = try? PropertyListValue(rhs) {
            return left == right
        }
        if let left = lhs as? [AnyHashable: Any], let right = rhs as? [AnyHashable: Any] {
            return left.count == right.count
                && left.allSatisfy { key, value in
                    right[key].map { looselyEqual(value, $0) } ?? false
                }
        }
        if let left = lhs as? [Any], let right = rhs as? [Any] {
            return left.count == right.count && zip(left, right).allSatisfy { looselyEqual($0, $1) }
        }
        if let left = lhs as? AnyHashable, let right = rhs as? AnyHashable {
            return left == right
        }
        if type(of: lhs) is AnyClass, type(of: rhs) is AnyClass {
            return (lhs as AnyObject) === (rhs as AnyObject)
        }
        return false
    }
}
