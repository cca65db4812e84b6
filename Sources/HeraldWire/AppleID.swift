/// Apple's team ids and key ids: ten ASCII letters or digits, like `TEAM123456` and `KEY1234567`.
///
/// ```swift
/// if let problem = AppleID.problem(teamID, name: "--team-id", example: "TEAM123456") { throw ValidationError(problem) }
/// ```
public enum AppleID {
    /// Whether `value` is ten ASCII letters or digits.
    public static func isValid(_ value: String) -> Bool {
        value.utf8.count == 10
            && value.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            }
    }

    /// Why `value` is not an id, as a sentence naming it `name` (a flag, a field) and showing `example`; nil when it is one.
    public static func problem(_ value: String, name: String, example: String) -> String? {
        isValid(value) ? nil : "\(name) must be 10 letters or digits, like \(example); got \"\(value)\""
    }
}
