import Foundation
import HeraldDBus
import HeraldSpawn

extension DesktopPresenter {
    /// Whether the desktop's notification server holds its own do-not-disturb, which a Focus that follows the desktop
    /// follows: KDE's `Inhibited` property (servers with the `inhibitions` capability), dunst's `paused`
    /// (`dunstctl set-paused`), GNOME's `org.gnome.desktop.notifications show-banners` switched off. Nil when the
    /// server keeps none that Herald knows of, or cannot be reached.
    package func doNotDisturb() async -> Bool? {
        guard let link = await currentLink() else { return nil }
        if link.capabilities.contains("inhibitions") { return await property("Inhibited", of: Self.name, on: link) }
        switch link.serverName {
        case "dunst": return await property("paused", of: "org.dunstproject.cmd0", on: link)
        case "gnome-shell": return await Self.gnomeBannersOff()
        default: return nil
        }
    }

    private func property(_ name: String, of interface: String, on link: Link) async -> Bool? {
        let reply = try? await link.connection.call(
            destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            [.string(interface), .string(name)], timeout: .seconds(2))
        guard case .variant(.boolean(let value))? = reply?.first else { return nil }
        return value
    }

    /// `gsettings get org.gnome.desktop.notifications show-banners` said `false`.
    private static func gnomeBannersOff() async -> Bool? {
        guard let gsettings = ["/usr/bin/gsettings", "/bin/gsettings"].first(where: FileManager.default.isExecutableFile) else {
            return nil
        }
        let pipe = Pipe()
        guard
            let child = try? ChildProcess.launch(
                gsettings, arguments: ["get", "org.gnome.desktop.notifications", "show-banners"],
                standardOutput: pipe.fileHandleForWriting.fileDescriptor)
        else { return nil }
        try? pipe.fileHandleForWriting.close()
        // Its answer is a word: the pipe holds it until the process has ended, so no thread blocks reading.
        guard await child.terminated() == .exited(0) else { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        switch output.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "false": return true
        case "true": return false
        default: return nil
        }
    }
}
