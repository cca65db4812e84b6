/// Minimal real files of each attachment format, byte by byte.
public enum AttachmentFixtures {
    public static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    public static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    public static func bigEndian64(_ value: UInt64) -> [UInt8] {
        bigEndian32(UInt32(value >> 32)) + bigEndian32(UInt32(value & 0xFFFF_FFFF))
    }

    public static func littleEndian32(_ value: UInt32) -> [UInt8] {
        bigEndian32(value).reversed()
    }

    public static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0] + [0xFF, 0xD9]

    public static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        + [0, 0, 0, 13] + ascii("IHDR") + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0] + [0x1F, 0x15, 0xC4, 0x89]
        + [0, 0, 0, 0] + ascii("IEND") + [0xAE, 0x42, 0x60, 0x82]

    /// A GIF of `frames` 1×1 frames, each behind a graphic control extension.
    public static func gif(frames: Int) -> [UInt8] {
        var bytes = ascii("GIF89a") + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 0xFF, 0xFF, 0xFF]
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
        }
        return bytes + [0x3B]
    }

    /// A RIFF file of `form` ("WAVE", "AVI ") with `chunks` after the form type.
    public static func riff(_ form: String, _ chunks: [UInt8], declaredSize: UInt32? = nil) -> [UInt8] {
        ascii("RIFF") + littleEndian32(declaredSize ?? UInt32(4 + chunks.count)) + ascii(form) + chunks
    }

    public static let wave: [UInt8] = riff(
        "WAVE",
        ascii("fmt ") + littleEndian32(16) + [1, 0, 1, 0, 0x44, 0xAC, 0, 0, 0x88, 0x58, 1, 0, 2, 0, 16, 0]
            + ascii("data") + littleEndian32(4) + [0, 0, 0, 0])

    /// An AVI whose main header says `frames` frames of `microsecondsPerFrame`.
    public static func avi(microsecondsPerFrame: UInt32 = 40_000, frames: UInt32 = 250) -> [UInt8] {
        var avih = littleEndian32(microsecondsPerFrame) + littleEndian32(0) + littleEndian32(0) + littleEndian32(0)
        avih += littleEndian32(frames) + [UInt8](repeating: 0, count: 36)
        let hdrl = ascii("hdrl") + ascii("avih") + littleEndian32(56) + avih
        return riff("AVI ", ascii("LIST") + littleEndian32(UInt32(hdrl.count)) + hdrl)
    }

    public static let aiff: [UInt8] = {
        let comm = ascii("COMM") + bigEndian32(18) + [0, 1, 0, 0, 0, 0, 0, 16, 0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]
        return ascii("FORM") + bigEndian32(UInt32(4 + comm.count)) + ascii("AIFF") + comm
    }()

    /// An MPEG-1 Layer III frame header: 128 kbit/s, 44.1 kHz, no padding — frames of 417 bytes.
    public static let mp3FrameHeader: [UInt8] = [0xFF, 0xFB, 0x90, 0x64]
    public static let mp3Frame: [UInt8] = mp3FrameHeader + [UInt8](repeating: 0, count: 413)

    public static let mp3WithID3: [UInt8] = ascii("ID3") + [3, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10) + mp3Frame
    public static let mp3Frames: [UInt8] = mp3Frame + mp3Frame
    /// One frame header followed by something else: only a hint or the extension confirms it is MP3.
    public static let mp3Weak: [UInt8] = mp3FrameHeader + [UInt8](repeating: 0x55, count: 600)

    public static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian32(UInt32(8 + payload.count)) + ascii(type) + payload
    }

    public static func ftyp(_ brand: String) -> [UInt8] {
        box("ftyp", ascii(brand) + bigEndian32(0) + ascii("isom"))
    }

    /// A movie header box, version 0 or 1.
    public static func mvhd(version: UInt8, timescale: UInt32, duration: UInt64) -> [UInt8] {
        var payload: [UInt8] = [version, 0, 0, 0]
        if version == 1 {
            payload += bigEndian64(0) + bigEndian64(0) + bigEndian32(timescale) + bigEndian64(duration)
        } else {
            payload += bigEndian32(0) + bigEndian32(0) + bigEndian32(timescale) + bigEndian32(UInt32(duration))
        }
        payload += [UInt8](repeating: 0, count: 80)  // rate, volume, matrix, next track id …
        return box("mvhd", payload)
    }

    public static func track(handler: String) -> [UInt8] {
        box("trak", box("mdia", box("hdlr", [0, 0, 0, 0] + bigEndian32(0) + ascii(handler) + [UInt8](repeating: 0, count: 13))))
    }

    /// An MPEG-4 file: ftyp, moov (mvhd and a track per handler), mdat.
    public static func mp4(
        brand: String = "isom", version: UInt8 = 0, timescale: UInt32 = 600, duration: UInt64 = 6000,
        handlers: [String] = ["vide"]
    ) -> [UInt8] {
        ftyp(brand) + box("moov", mvhd(version: version, timescale: timescale, duration: duration) + handlers.flatMap(track))
            + box("mdat", [1, 2, 3, 4])
    }

    /// An MPEG-2 program stream pack header, a padding packet and the end code.
    public static let mpeg2Program: [UInt8] =
        [0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1, 1, 0x89, 0xC3, 0xF8]
        + [0, 0, 1, 0xBE, 0, 4, 0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 1, 0xB9]
    /// An MPEG-1 program stream pack header and the end code.
    public static let mpeg1Program: [UInt8] = [0, 0, 1, 0xBA, 0x21, 0, 1, 0, 1, 0x80, 0x1B, 0x91] + [0, 0, 1, 0xB9]
    /// An MPEG-1 video sequence header.
    public static let mpeg1Video: [UInt8] = [0, 0, 1, 0xB3, 0x01, 0x00, 0x10, 0x14, 0xFF, 0xFF, 0xE0, 0xA0] + [0, 0, 1, 0xB7]
    /// An MPEG-2 video sequence header followed by its sequence extension.
    public static let mpeg2Video: [UInt8] =
        [0, 0, 1, 0xB3, 0x01, 0x00, 0x10, 0x14, 0xFF, 0xFF, 0xE0, 0xA0]
        + [0, 0, 1, 0xB5, 0x14, 0x8A, 0x00, 0x01, 0x00, 0x00] + [0, 0, 1, 0xB7]
}
