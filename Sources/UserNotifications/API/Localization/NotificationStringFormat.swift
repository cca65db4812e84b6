import Foundation

/// printf-style formatting that cannot crash on arguments that do not fit the format.
///
/// `String(format:)` trusts the format: `%@` given an `Int`, or fewer arguments than specifiers, reads
/// garbage or crashes — and here formats come from an app's strings file and arguments from a push payload's
/// `loc-args`. This formatter reads each specifier (`%@`, `%d`, `%1$@`, `%.2f`, `%%`, …), converts the argument
/// to what the specifier needs, and formats one value at a time. A specifier with no argument is left as
/// written; an argument that cannot become a number is shown as text.
package enum NotificationStringFormat {
    private struct Specifier {
        var position: Int?
        var flags = ""
        var width = ""
        var precision = ""
        var conversion: Character
    }

    /// `format` with `arguments` substituted.
    package static func format(_ format: String, arguments: [Any]) -> String {
        var output = ""
        var nextArgument = 0
        var index = format.startIndex
        while let percent = format[index...].firstIndex(of: "%") {
            output += format[index..<percent]
            guard let (specifier, end) = parse(format, at: format.index(after: percent)) else {
                output += format[percent...]  // an incomplete specifier at the end stays as written
                return output
            }
            index = end
            if specifier.conversion == "%" {
                output += "%"
                continue
            }
            let position = specifier.position.map { $0 - 1 } ?? nextArgument
            if specifier.position == nil { nextArgument += 1 }
            guard arguments.indices.contains(position) else {
                output += format[percent..<end]
                continue
            }
            output += render(arguments[position], as: specifier)
        }
        output += format[index...]
        return output
    }

    private static let flagCharacters: Set<Character> = ["-", "+", " ", "#", "0", "'"]
    private static let lengthCharacters: Set<Character> = ["h", "l", "q", "L", "z", "t", "j"]
    private static let conversions: Set<Character> = [
        "%", "@", "d", "D", "i", "u", "U", "x", "X", "o", "O",
        "f", "F", "e", "E", "g", "G", "a", "A", "c", "C", "s", "S", "p",
    ]

    /// The specifier after a `%`, and where it ends; nil when the format ends inside it or it is unknown.
    private static func parse(_ format: String, at start: String.Index) -> (Specifier, String.Index)? {
        var index = start
        func digits() -> String {
            var text = ""
            while index < format.endIndex, format[index].isASCII, format[index].isNumber {
                text.append(format[index])
                index = format.index(after: index)
            }
            return text
        }
        var position: Int?
        let leading = digits()
        if !leading.isEmpty, index < format.endIndex, format[index] == "$" {
            position = Int(leading)
            index = format.index(after: index)
        } else {
            index = start  // those digits were a width (or a 0 flag); read them again below
        }
        var flags = ""
        while index < format.endIndex, flagCharacters.contains(format[index]) {
            if format[index] != "'" { flags.append(format[index]) }  // grouping is not portable: dropped
            index = format.index(after: index)
        }
        let width = digits()
        var precision = ""
        if index < format.endIndex, format[index] == "." {
            index = format.index(after: index)
            precision = "." + digits()
        }
        while index < format.endIndex, lengthCharacters.contains(format[index]) {
            index = format.index(after: index)  // lengths are chosen below from the conversion
        }
        guard index < format.endIndex, conversions.contains(format[index]), position.map({ $0 > 0 }) ?? true else { return nil }
        let specifier = Specifier(position: position, flags: flags, width: width, precision: precision, conversion: format[index])
        return (specifier, format.index(after: index))
    }

    private static func render(_ argument: Any, as specifier: Specifier) -> String {
        let prefix = "%" + specifier.flags + specifier.width + specifier.precision
        switch specifier.conversion {
        case "d", "D", "i":
            guard let value = integer(argument) else { return text(argument) }
            return String(format: prefix + "lld", value)
        case "u", "U", "x", "X", "o", "O":
            guard let value = integer(argument) else { return text(argument) }
            let conversion = specifier.conversion == "U" ? "u" : specifier.conversion == "O" ? "o" : String(specifier.conversion)
            return String(format: prefix + "ll" + conversion, UInt64(bitPattern: value))
        case "f", "F", "e", "E", "g", "G", "a", "A":
            guard let value = double(argument) else { return text(argument) }
            return String(format: prefix + String(specifier.conversion), value)
        case "c", "C":
            guard let value = integer(argument), let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: value)) else { return text(argument) }
            return String(Character(scalar))
        default:  // @, s, S, p: as text
            return text(argument)
        }
    }

    private static func text(_ argument: Any) -> String {
        switch argument {
        case let string as String: string
        case let number as NSNumber: number.stringValue
        default: String(describing: argument)
        }
    }

    private static func integer(_ argument: Any) -> Int64? {
        if type(of: argument) is AnyClass, let number = argument as? NSNumber { return number.int64Value }
        switch argument {
        case let int as Int: return Int64(int)
        case let int as Int32: return Int64(int)
        case let int as Int64: return int
        case let uint as UInt: return Int64(truncatingIfNeeded: uint)
        case let uint as UInt64: return Int64(truncatingIfNeeded: uint)
        case let bool as Bool: return bool ? 1 : 0
        case let double as Double: return double.isFinite ? Int64(exactly: double.rounded(.towardZero)) : nil
        case let string as String: return Int64(string.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    private static func double(_ argument: Any) -> Double? {
        if type(of: argument) is AnyClass, let number = argument as? NSNumber { return number.doubleValue }
        switch argument {
        case let double as Double: return double
        case let float as Float: return Double(float)
        case let string as String: return Double(string.trimmingCharacters(in: .whitespaces))
        default: return integer(argument).map(Double.init)
        }
    }
}
