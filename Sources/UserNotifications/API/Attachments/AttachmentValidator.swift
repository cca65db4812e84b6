package import Foundation

/// An attachment's file as validation found it.
package struct ValidatedAttachment: Equatable, Sendable {
    package var format: AttachmentFormat
    package var options: AttachmentOptions
    package var size: UInt64
    package var metadata: AttachmentMetadata
}

/// Validates attachment files the way `UNNotificationAttachment(identifier:url:options:)` does. The engine can
/// call it again before moving a file into its attachment store.
package enum AttachmentValidator {
    /// Validates the file at `url` with `options` (the public options dictionary).
    /// - Throws: `UNError` — see `validate(url:parsedOptions:)`; also `attachmentCorrupt` for malformed options.
    package static func validate(url: URL, options: [AnyHashable: Any]?) throws(UNError) -> ValidatedAttachment {
        try validate(url: url, parsedOptions: try AttachmentOptions(options))
    }

    /// Validates the file at `url`, in this order:
    /// - Throws: `attachmentInvalidURL` when `url` is not a file URL or no readable regular file is there;
    ///   `attachmentCorrupt` when the file is empty;
    ///   `attachmentUnrecognizedType` when its content is of no supported type (the TypeHint and extension only
    ///   choose between the types the content allows);
    ///   `attachmentInvalidFileSize` when it is larger than its kind allows (`AttachmentKind.maximumSize`);
    ///   `attachmentCorrupt` when it is truncated or malformed, or the thumbnail time is past a movie's end
    ///   or a GIF's last frame.
    package static func validate(url: URL, parsedOptions options: AttachmentOptions) throws(UNError) -> ValidatedAttachment {
        guard url.isFileURL else {
            throw UNError(.attachmentInvalidURL, "the attachment URL \(url.absoluteString) is not a file URL")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw UNError(.attachmentInvalidURL, "there is no file at \(url.path)")
        }
        let reader = try FileByteReader(url: url)
        defer { reader.close() }
        guard reader.size > 0 else { throw UNError(.attachmentCorrupt, "the attachment file \(url.lastPathComponent) is empty") }

        let format = try resolve(try AttachmentSniffer.sniff(reader), typeHint: options.typeHint, fileExtension: url.pathExtension)
        guard reader.size <= format.kind.maximumSize else {
            throw UNError(
                .attachmentInvalidFileSize,
                "the \(format.kind) attachment \(url.lastPathComponent) has \(reader.size) bytes; at most \(format.kind.maximumSize) are allowed")
        }
        let metadata = try AttachmentIntegrity.check(reader, as: format)
        if let time = options.thumbnailTime {
            try checkThumbnailTime(time, metadata: metadata, format: format)
        }
        return ValidatedAttachment(format: format, options: options, size: reader.size, metadata: metadata)
    }

    /// The format of sniffed content: what the content says, or — when it allows several — the one the
    /// TypeHint, then the file extension, names; else the fallback.
    /// - Throws: `attachmentUnrecognizedType` when the content is of no supported type, or is only weakly
    ///   recognized and neither the hint nor the extension confirms it.
    package static func resolve(_ sniffed: SniffedFormat, typeHint: String?, fileExtension: String) throws(UNError) -> AttachmentFormat {
        switch sniffed {
        case .format(let format):
            return format
        case .ambiguous(let candidates, let fallback):
            let hinted = [typeHint.flatMap(AttachmentFormat.init(typeIdentifier:)), AttachmentFormat(fileExtension: fileExtension)]
            if let format = hinted.compactMap({ $0 }).first(where: candidates.contains) ?? fallback {
                return format
            }
            throw UNError(
                .attachmentUnrecognizedType,
                "the attachment's content looks like \(candidates.map(\.typeIdentifier).joined(separator: " or ")) but neither a type hint nor the file extension confirms it"
            )
        case .unknown:
            throw UNError(
                .attachmentUnrecognizedType,
                "the attachment's content is not a supported image (JPEG, PNG, GIF), audio (MP3, WAV, AIFF, MPEG-4 audio) or movie (MPEG, MPEG-2, MPEG-4, AVI)"
            )
        }
    }

    private static func checkThumbnailTime(_ time: Double, metadata: AttachmentMetadata, format: AttachmentFormat) throws(UNError) {
        let key = UNNotificationAttachmentOptionsThumbnailTimeKey
        if format.kind == .movie, let duration = metadata.duration, time > duration {
            throw UNError(.attachmentCorrupt, "options[\(key)] is \(time) s, past the end of the \(duration) s movie")
        }
        if let frames = metadata.frameCount, time.rounded(.down) != time || time >= Double(frames) {
            throw UNError(.attachmentCorrupt, "options[\(key)] is \(time); the GIF's frames are numbered 0…\(frames - 1)")
        }
    }
}
