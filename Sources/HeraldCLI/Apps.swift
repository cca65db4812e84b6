import ArgumentParser
import Foundation
import HeraldDevice
import HeraldWire
import UserNotifications

/// `herald apps`: the apps installed on this machine, whose notifications the device daemon handles.
struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Install, list and remove apps (bundles with an Info.plist) for the device daemon.",
        discussion:
            "An app is a Name.app directory with an Info.plist naming CFBundleIdentifier and CFBundleExecutable; its notification extensions are Name.app/PlugIns/*.appex bundles. See docs/apps.md.",
        subcommands: [Install.self, List.self, Remove.self]
    )

    /// `--data-dir`, where the registry (`DATA_DIR/device/apps.json`) lives.
    struct RegistryOption: ParsableArguments {
        @Option(
            name: .customLong("data-dir"),
            help: "Where the device keeps its apps and notifications (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
        var path: String = AppIdentity.dataDirectory().path

        var registry: InstalledApps { InstalledApps(dataDirectory: URL(fileURLWithPath: path)) }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install an app from its bundle (Name.app) or Info.plist; replaces an installed app with the same bundle id."
        )

        @Argument(help: "The app bundle directory (Name.app) or its Info.plist.")
        var path: String

        @Option(
            name: .customLong("executable-dir"),
            help: "Where to find CFBundleExecutable of the app and its extensions when the bundle does not hold them (e.g. .build/debug).")
        var executableDirectory: String?

        @OptionGroup var dataDirectory: RegistryOption

        @Flag(help: "Print the installed app as one JSON object.")
        var json = false

        func validate() throws {
            if let executableDirectory {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: executableDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw ValidationError(
                        "--executable-dir \(executableDirectory) is not a directory; give the directory the executables were built in, e.g. .build/debug"
                    )
                }
            }
        }

        func run() async throws {
            let app: AppManifest
            do {
                app = try AppManifest.load(
                    from: URL(fileURLWithPath: path),
                    executableDirectory: executableDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
                )
            } catch {
                throw ValidationError(error.message)
            }
            let replaced: Bool
            do {
                replaced = try dataDirectory.registry.install(app)
            } catch {
                throw ValidationError("\(error)")
            }
            if json {
                var fields = AppListing.jsonFields(app)
                fields["replaced"] = .bool(replaced)
                printNow(String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self))
            } else {
                printNow("\(replaced ? "replaced" : "installed") " + AppListing.text(app))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the installed apps and their notification extensions.")

        @OptionGroup var dataDirectory: RegistryOption

        @Flag(help: "Print one JSON object per app, one per line.")
        var json = false

        func run() async throws {
            let registry = dataDirectory.registry
            let apps: [AppManifest]
            do {
                apps = try registry.all()
            } catch {
                throw ValidationError("\(error)")
            }
            if json {
                for app in apps {
                    printNow(String(decoding: JSONValue.object(AppListing.jsonFields(app)).encoded(), as: UTF8.self))
                }
            } else if apps.isEmpty {
                printNow("no apps installed (\(registry.file.path)); install one with: herald apps install PATH/Name.app")
            } else {
                printNow(apps.map(AppListing.text).joined(separator: "\n"))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an installed app (its bundle and notifications stay where they are).")

        @Argument(help: "The app's bundle id.")
        var bundleID: String

        @OptionGroup var dataDirectory: RegistryOption

        func run() async throws {
            let registry = dataDirectory.registry
            let removed: Bool
            do {
                removed = try registry.remove(bundleID: bundleID)
            } catch {
                throw ValidationError("\(error)")
            }
            guard removed else {
                throw ValidationError("\(bundleID) is not installed (\(registry.file.path)); herald apps list shows the installed apps")
            }
            printNow("removed \(bundleID)")
        }
    }
}
