/// What a topic (a bundle id, possibly with a push-type suffix) may look like.
public enum TopicSyntax {
    /// Letters, digits, `.`, `-` and `_`; at most 255 bytes; not starting or ending with a dot (the empty
    /// topic passes here; callers decide what a missing topic means).
    public static func isValid(_ topic: String) -> Bool {
        let allowed = topic.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        return allowed && topic.utf8.count <= 255 && !topic.hasPrefix(".") && !topic.hasSuffix(".")
    }

    /// Why `bundleID` is not a bundle id (empty, or not valid as above), as a sentence a person can act on; nil when it is one.
    public static func bundleIDProblem(_ bundleID: String) -> String? {
        !bundleID.isEmpty && isValid(bundleID) ? nil : "\"\(bundleID)\" is not a bundle id; use one like com.example.app"
    }
}
