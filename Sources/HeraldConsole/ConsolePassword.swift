import CryptoExtras
import Foundation
public import HeraldStore
import HeraldWire

/// The console's optional password, set with `herald console password`: a person may sign in with it instead of the
/// admin token. Only its scrypt hash is kept, in `DATA_DIR/console-password` (0600), read at each sign-in, so setting
/// or removing it takes effect without a restart.
public enum ConsolePassword {
    /// Fewer characters than this are refused: the password guards the whole admin API.
    public static let minimumLength = 12
    /// scrypt's cost: N = 2^15, r = 8, p = 1 (about 32 MiB and a few tens of milliseconds per try).
    private static let rounds = 1 << 15
    private static let blockSize = 8
    private static let parallelism = 1

    public static func path(in directory: DataDirectory) -> String {
        directory.url.appendingPathComponent("console-password").path
    }

    /// Keeps the hash of `password`.
    public static func set(_ password: String, in directory: DataDirectory) throws {
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        let hash = try derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        let line = "scrypt$\(rounds)$\(blockSize)$\(parallelism)$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))\n"
        try DataDirectory.writeSecret(Data(line.utf8), to: path(in: directory))
    }

    /// Forgets the password; false when none was set.
    public static func remove(in directory: DataDirectory) -> Bool {
        (try? FileManager.default.removeItem(atPath: path(in: directory))) != nil
    }

    /// Whether `password` is the one set (false when none is).
    static func matches(_ password: String, in directory: DataDirectory) -> Bool {
        guard let line = try? String(contentsOfFile: path(in: directory), encoding: .utf8) else { return false }
        let parts = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let rounds = Int(parts[1]), let blockSize = Int(parts[2]),
            let parallelism = Int(parts[3]), let salt = Base64URL.decode(parts[4]), let expected = Base64URL.decode(parts[5]),
            let hash = try? derive(password, salt: Array(salt), rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        return ConsoleSessions.constantTimeEqual(Base64URL.encode(hash), Base64URL.encode(expected))
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }
}
