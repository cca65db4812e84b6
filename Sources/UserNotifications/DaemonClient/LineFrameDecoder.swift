package import NIOCore

/// Splits the daemon socket's byte stream into lines (without the newline).
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// A line longer than this closes the connection: no peer makes the other buffer without bound.
    let maximumLength: Int

    struct LineTooLong: Error, CustomStringConvertible {
        var maximumLength: Int
        var description: String { "a line on the daemon socket exceeded \(maximumLength) bytes" }
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maximumLength { throw LineTooLong(maximumLength: maximumLength) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maximumLength else { throw LineTooLong(maximumLength: maximumLength) }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

extension Channel {
    /// Frames the channel into lines and wraps it for async code.
    package func daemonLines() throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maximumLength: 64 << 20)))
        return try NIOAsyncChannel(wrappingChannelSynchronously: self)
    }
}
