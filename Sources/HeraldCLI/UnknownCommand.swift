import ArgumentParser
import Foundation

/// A first word that names no command. `serve` is the default command, so without this check `herald sned --help`
/// would print serve's help and exit 0, and a script asking whether a command exists would be told it does.
struct UnknownCommand: Error, CustomStringConvertible {
    let word: String
    /// The command `word` is most likely a typo of, if any is close.
    let suggestion: String?
    /// Each command's name and one-line abstract, in the order `herald --help` lists them.
    let commands: [(name: String, abstract: String)]

    /// The unknown command in `arguments` (`herald`'s, without the program's name), if its first word is one: not an
    /// option (serve's, or `--help`), not a command's name or alias, and not `help`.
    static func find(in arguments: [String], commands: [any ParsableCommand.Type]) -> UnknownCommand? {
        guard let word = arguments.first, !word.hasPrefix("-") else { return nil }
        let listed = commands.map { command in
            (name: command._commandName, aliases: command.configuration.aliases, abstract: command.configuration.abstract)
        }
        if word == "help" || listed.contains(where: { $0.name == word || $0.aliases.contains(word) }) { return nil }
        let closest = listed.map { (name: $0.name, distance: editDistance(word, $0.name)) }.min { $0.distance < $1.distance }
        let suggestion = closest.flatMap { $0.distance <= max(1, min(2, word.count / 2)) ? $0.name : nil }
        return UnknownCommand(word: word, suggestion: suggestion, commands: listed.map { ($0.name, $0.abstract) })
    }

    var description: String {
        let width = commands.map(\.name.count).max() ?? 0
        var lines = ["Error: unknown command '\(word)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")]
        lines.append("The commands are:")
        for command in commands {
            lines.append("  " + command.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + command.abstract)
        }
        lines.append("See 'herald help COMMAND' for one of them; 'herald' alone runs 'herald serve'.")
        return lines.joined(separator: "\n")
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1
    /// each, so "sned" is 1 from "send".
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
