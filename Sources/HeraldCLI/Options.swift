public import ArgumentParser
import Foundation
import HeraldStore
public import HeraldWire

/// `--data-dir`, shared by the commands that read or write a gateway's data.
struct DataDirectoryOption: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Herald's data directory (default: $XDG_DATA_HOME/herald).")
    var path: String = DataDirectory.defaultPath

    var directory: DataDirectory { DataDirectory(path: path) }

    /// Creates the directory (0700) when missing, saying so unless `quietly`.
    func prepare(quietly: Bool = false) throws -> DataDirectory {
        try Self.prepare(directory, quietly: quietly)
    }

    /// Creates `directory` (0700) when missing, saying so unless `quietly`.
    static func prepare(_ directory: DataDirectory, quietly: Bool = false) throws -> DataDirectory {
        let isNew = !FileManager.default.fileExists(atPath: directory.storePath)
        do {
            try directory.prepare()
        } catch {
            throw ValidationError("cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        if isNew, !quietly {
            FileHandle.standardError.write(
                Data(
                    "note: using a new data directory, \(directory.path); a gateway serves it with `herald serve --data-dir \(directory.path)`\n".utf8
                ))
        }
        return directory
    }

    /// Opens the SQLite store at `path` (the data directory's, or one `serve --store` names).
    static func open(_ path: String, in directory: DataDirectory, busyTimeout: Duration = .seconds(10)) throws -> SQLiteStore {
        do {
            return try SQLiteStore(path: path, busyTimeout: busyTimeout)
        } catch {
            throw ValidationError("cannot open the store \(path == directory.storePath ? "in \(directory.path)" : path): \(error.message)")
        }
    }
}

extension APNsEnvironment: ExpressibleByArgument {}

/// Apple's team and key ids are ten letters or digits.
func validateAppleID(_ value: String, name: String, example: String) throws {
    if let problem = AppleID.problem(value, name: name, example: example) { throw ValidationError(problem) }
}

/// Bundle ids as the gateway takes them (``TopicSyntax``).
func validateTopics(_ topics: [String]) throws {
    for topic in topics {
        if let problem = TopicSyntax.bundleIDProblem(topic) { throw ValidationError(problem) }
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
