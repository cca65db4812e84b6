public import ArgumentParser
import Foundation
import HeraldStore
public import HeraldWire

/// `--data-dir`, shared by the commands that read or write a gateway's data.
struct DataDirectoryOption: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Herald's data directory (default: $XDG_DATA_HOME/herald).")
    var path: String = DataDirectory.defaultPath

    var directory: DataDirectory { DataDirectory(path: path) }

    /// Creates the directory if needed and opens its SQLite store.
    func openStore() throws -> (DataDirectory, SQLiteStore) {
        let directory = self.directory
        do {
            try directory.prepare()
        } catch {
            throw ValidationError("cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        do {
            return (directory, try SQLiteStore(path: directory.storePath))
        } catch {
            throw ValidationError("cannot open the store in \(directory.path): \(error.message)")
        }
    }
}

extension APNsEnvironment: ExpressibleByArgument {}

/// Apple's team and key ids are ten letters or digits.
func validateAppleID(_ value: String, name: String, example: String) throws {
    let valid = value.utf8.count == 10 && value.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII }
    if !valid {
        throw ValidationError("\(name) must be 10 letters or digits, like \(example); got \"\(value)\"")
    }
}

func validateTopics(_ topics: [String]) throws {
    for topic in topics where topic.isEmpty || topic.contains(" ") || topic.hasPrefix(".") {
        throw ValidationError("\"\(topic)\" is not a bundle id; use one like com.example.app")
    }
}

/// Reads a whole file, or standard input for "-", with a message a person can act on.
func readInput(_ path: String, what: String) throws -> Data {
    if path == "-" {
        return FileHandle.standardInput.readDataToEndOfFile()
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("cannot read \(what) \(path): no such file or not readable")
    }
    return data
}

/// Writes a line to standard output at once (print buffers when stdout is a pipe, and a long-running
/// command's lines must reach scripts as they happen).
func printNow(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
