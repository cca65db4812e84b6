/// What an attachment is: audio, image or movie, each with its size limit.
package enum AttachmentKind: Sendable {
    case audio
    case image
    case movie

    /// The largest file allowed: audio 5 MB, image 10 MB, movie 50 MB, where MB is 10^6 bytes — the
    /// stricter reading of Apple's limits, so a file accepted here is accepted on iOS too.
    package var maximumSize: UInt64 {
        switch self {
        case .audio: 5_000_000
        case .image: 10_000_000
        case .movie: 50_000_000
        }
    }
}

/// The file formats an attachment may have, named by their uniform type identifiers.
package enum AttachmentFormat: String, CaseIterable, Sendable {
    case jpeg = "public.jpeg"
    case png = "public.png"
    case gif = "com.compuserve.gif"
    case mp3 = "public.mp3"
    case wave = "com.microsoft.waveform-audio"
    case aiff = "public.aiff-audio"
    case mpeg4Audio = "public.mpeg-4-audio"
    case mpeg = "public.mpeg"
    case mpeg2Video = "public.mpeg-2-video"
    case mpeg4 = "public.mpeg-4"
    case avi = "public.avi"

    /// The uniform type identifier, as `UNNotificationAttachment.type` reports it.
    package var typeIdentifier: String { rawValue }

    package var kind: AttachmentKind {
        switch self {
        case .jpeg, .png, .gif: .image
        case .mp3, .wave, .aiff, .mpeg4Audio: .audio
        case .mpeg, .mpeg2Video, .mpeg4, .avi: .movie
        }
    }

    package var fileExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg", "jpe"]
        case .png: ["png"]
        case .gif: ["gif"]
        case .mp3: ["mp3"]
        case .wave: ["wav", "wave"]
        case .aiff: ["aif", "aiff", "aifc"]
        case .mpeg4Audio: ["m4a", "m4b"]
        case .mpeg: ["mpg", "mpeg", "mpe", "m1v"]
        case .mpeg2Video: ["m2v"]
        case .mpeg4: ["mp4", "m4v"]
        case .avi: ["avi"]
        }
    }

    /// Other identifiers apps pass as a type hint for these formats.
    private static let aliases: [String: AttachmentFormat] = [
        "com.apple.m4a-audio": .mpeg4Audio,
        "com.apple.m4v-video": .mpeg4,
        "public.aifc-audio": .aiff,
        "public.avi-movie": .avi,
        "public.mpeg-4-video": .mpeg4,
    ]

    /// The format a type identifier (a TypeHint) names, if it is one of these.
    package init?(typeIdentifier: String) {
        let identifier = typeIdentifier.lowercased()
        guard let format = AttachmentFormat(rawValue: identifier) ?? Self.aliases[identifier] else { return nil }
        self = format
    }

    /// The format a file name extension names, if it is one of these.
    package init?(fileExtension: String) {
        let ext = fileExtension.lowercased()
        guard let format = Self.allCases.first(where: { $0.fileExtensions.contains(ext) }) else { return nil }
        self = format
    }
}
