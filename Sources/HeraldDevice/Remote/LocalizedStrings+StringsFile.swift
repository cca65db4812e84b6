import Foundation

extension LocalizedStrings {
    /// Why a strings file could not be read.
    struct StringsFileError: Error, CustomStringConvertible {
        var description: String
    }

    /// The pairs of a `.strings` file: the OpenStep strings format or a property list (binary or XML), in
    /// UTF-8 or UTF-16. Values that are not strings (a plist may hold any) are left out.
    static func parse(_ data: Data) throws(StringsFileError) -> [String: String] {
        guard !data.isEmpty else { return [:] }
        let setRefused = StringsFileError(description: "a binary property list holding a set; write pairs like \"KEY\" = \"value\";")
        if BinaryPropertyList.holdsASet(data) { throw setRefused }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            // PropertyListSerialization reads UTF-16 only after a byte-order mark; Xcode's old files often lack one.
            guard let text = utf16WithoutByteOrderMark(data), !BinaryPropertyList.holdsASet(Data(text.utf8)),
                let reread = try? PropertyListSerialization.propertyList(from: Data(text.utf8), options: [], format: nil)
            else {
                let reason = (error as NSError).userInfo["NSDebugDescription"] as? String ?? "\(error)"
                throw StringsFileError(description: "not a strings file (\(reason)); write pairs like \"KEY\" = \"value\";")
            }
            plist = reread
        }
        guard let dictionary = plist as? [String: Any] else {
            throw StringsFileError(description: "holds a single value, not pairs like \"KEY\" = \"value\";")
        }
        return dictionary.compactMapValues { $0 as? String }
    }

    /// The text of UTF-16 bytes without a byte-order mark, told apart from UTF-8 by the zero bytes of its
    /// ASCII characters (a strings file is mostly quotes, `=` and `;`).
    private static func utf16WithoutByteOrderMark(_ data: Data) -> String? {
        guard data.count >= 2, data.count % 2 == 0 else { return nil }
        let bytes = [UInt8](data)
        let evenZeros = stride(from: 0, to: bytes.count, by: 2).count { bytes[$0] == 0 }
        let oddZeros = stride(from: 1, to: bytes.count, by: 2).count { bytes[$0] == 0 }
        let half = bytes.count / 4  // at least half of the code units are ASCII
        if oddZeros >= half, evenZeros * 4 < oddZeros { return String(data: data, encoding: .utf16LittleEndian) }
        if evenZeros >= half, oddZeros * 4 < evenZeros { return String(data: data, encoding: .utf16BigEndian) }
        return nil
    }
}
