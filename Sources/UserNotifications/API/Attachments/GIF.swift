/// Walks the blocks of a GIF image (GIF89a specification).
package enum GIF {
    /// The number of frames (image descriptors) up to the trailer; throws `attachmentCorrupt` when the file
    /// ends before the trailer or holds a block that is not GIF.
    package static func frameCount(in reader: any ByteReader) throws(UNError) -> Int {
        var cursor = ByteCursor(reader, at: 6, what: "GIF image")
        // Logical screen descriptor: width(2) height(2) flags(1) background(1) aspect(1).
        try cursor.skip(4)
        let screenFlags = try cursor.byte()
        try cursor.skip(2)
        if screenFlags & 0x80 != 0 {
            try cursor.skip(colorTableSize(screenFlags))
        }
        var frames = 0
        while true {
            switch try cursor.byte() {
            case 0x21:  // extension: label, then data sub-blocks
                _ = try cursor.byte()
                try skipSubBlocks(&cursor)
            case 0x2C:  // image descriptor: left(2) top(2) width(2) height(2) flags(1), then LZW data
                try cursor.skip(8)
                let imageFlags = try cursor.byte()
                if imageFlags & 0x80 != 0 {
                    try cursor.skip(colorTableSize(imageFlags))
                }
                _ = try cursor.byte()  // LZW minimum code size
                try skipSubBlocks(&cursor)
                frames += 1
            case 0x3B:  // trailer
                guard frames > 0 else { throw UNError(.attachmentCorrupt, "the GIF image has no frames") }
                return frames
            case let byte:
                throw UNError(.attachmentCorrupt, "the GIF image has an unknown block 0x\(String(byte, radix: 16)) at offset \(cursor.offset - 1)")
            }
        }
    }

    private static func colorTableSize(_ flags: UInt8) -> UInt64 {
        3 << (UInt64(flags & 0x07) + 1)
    }

    private static func skipSubBlocks(_ cursor: inout ByteCursor) throws(UNError) {
        while true {
            let length = try cursor.byte()
            if length == 0 { return }
            try cursor.skip(UInt64(length))
        }
    }
}
