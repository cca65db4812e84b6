import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import Synchronization

/// An HTTP/2 server (h2c, prior knowledge) that answers each request as its script says, including the ways a
/// server misbehaves: GOAWAY mid-stream, SETTINGS changes, 429 bursts, stalls past any deadline.
final class ScriptedHTTP2Server: Sendable {
    /// One request as the server saw it.
    struct Request: Sendable {
        /// 0, 1, 2… across the server's life.
        var index: Int
        /// 1, 2, 3… by the order connections were accepted.
        var connection: Int
        var streamID: Int
        var headers: [String: String]
        var body: Data
        /// Streams open on its connection when it arrived, itself included.
        var openStreams: Int
    }

    /// What to do with a request.
    enum Action: Sendable {
        /// Answer with a status (and `{"reason":…}` when a reason is given).
        case respond(status: Int, reason: String? = nil)
        /// Never answer.
        case stall
        /// GOAWAY naming the stream before the lowest open one as the last processed: none of the requests in
        /// flight on the connection, this one included, is processed.
        case goAway(reason: String)
        /// GOAWAY naming this stream as processed, then answer it.
        case goAwayAfterAnswering(status: Int, reason: String)
        /// Announce a new SETTINGS_MAX_CONCURRENT_STREAMS, then follow the next action.
        case settings(maximumConcurrentStreams: Int, then: [Action])
        /// RST_STREAM with this code.
        case reset(HTTP2ErrorCode)
        /// Wait, then follow the actions.
        case delay(Duration, then: [Action])
        /// Close the TCP connection without a word.
        case close
    }

    fileprivate struct State {
        var requests: [Request] = []
        var connections = 0
        var pings = 0
        var maximumOpenStreams = 0
    }

    let port: Int
    private let channel: any Channel
    private let box: Box

    private init(port: Int, channel: any Channel, box: Box) {
        self.port = port
        self.channel = channel
        self.box = box
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var requests: [Request] { box.state.withLock { $0.requests } }
    var connections: Int { box.state.withLock { $0.connections } }
    var pings: Int { box.state.withLock { $0.pings } }
    /// The most streams open at once on any connection.
    var maximumOpenStreams: Int { box.state.withLock { $0.maximumOpenStreams } }

    /// Starts the server.
    ///
    /// - Parameters:
    ///   - initialMaximumConcurrentStreams: SETTINGS_MAX_CONCURRENT_STREAMS in the server's preface.
    ///   - afterFirstSuccess: The value announced after the connection's first 200, as APNs does; nil keeps it.
    ///   - script: The actions for each request.
    static func start(
        initialMaximumConcurrentStreams: Int = 100,
        afterFirstSuccess: Int? = nil,
        script: @escaping @Sendable (Request) -> [Action]
    ) async throws -> ScriptedHTTP2Server {
        let box = Box()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let number = box.state.withLock { state in
                        state.connections += 1
                        return state.connections
                    }
                    var configuration = NIOHTTP2Handler.ConnectionConfiguration()
                    configuration.initialSettings = [
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: initialMaximumConcurrentStreams),
                        HTTP2Setting(parameter: .maxHeaderListSize, value: 16_384),
                    ]
                    try channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: configuration))
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptHandler(
                            connection: number, box: box, afterFirstSuccess: afterFirstSuccess, script: script
                        ))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ScriptedHTTP2Server(port: channel.localAddress!.port!, channel: channel, box: box)
    }

    func stop() async {
        try? await channel.close()
    }
}

extension ScriptedHTTP2Server {
    /// Shares the server's state with its connection handlers.
    fileprivate final class Box: Sendable {
        let state = Mutex(State())
    }

    /// One connection of the scripted server.
    fileprivate final class ScriptHandler: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame
        typealias OutboundOut = HTTP2Frame

        private let connection: Int
        private let box: Box
        private let afterFirstSuccess: Int?
        private let script: @Sendable (Request) -> [Action]
        private var partial: [HTTP2StreamID: (headers: [String: String], body: Data)] = [:]
        private var open = Set<HTTP2StreamID>()
        private var raised = false
        private var unacknowledged = 0

        init(connection: Int, box: Box, afterFirstSuccess: Int?, script: @escaping @Sendable (Request) -> [Action]) {
            self.connection = connection
            self.box = box
            self.afterFirstSuccess = afterFirstSuccess
            self.script = script
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.payload {
            case .ping(_, ack: false):
                box.state.withLock { $0.pings += 1 }
            case .headers(let headers):
                var fields: [String: String] = [:]
                for header in headers.headers { fields[header.name] = header.value }
                partial[frame.streamID] = (fields, Data())
                open.insert(frame.streamID)
                if headers.endStream { arrived(frame.streamID, context: context) }
            case .data(let data):
                if case .byteBuffer(let buffer) = data.data {
                    partial[frame.streamID]?.body.append(contentsOf: buffer.readableBytesView)
                    unacknowledged += buffer.readableBytes
                }
                if unacknowledged > 16_384 {
                    context.write(
                        wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: unacknowledged))), promise: nil)
                    unacknowledged = 0
                }
                if data.endStream { arrived(frame.streamID, context: context) }
            case .rstStream:
                open.remove(frame.streamID)
                partial[frame.streamID] = nil
            default:
                break
            }
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            context.flush()
        }

        private func arrived(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
            guard let (headers, body) = partial.removeValue(forKey: streamID) else { return }
            let request = box.state.withLock { state in
                let request = Request(
                    index: state.requests.count, connection: connection, streamID: Int(streamID), headers: headers,
                    body: body, openStreams: open.count
                )
                state.requests.append(request)
                state.maximumOpenStreams = max(state.maximumOpenStreams, open.count)
                return request
            }
            perform(script(request), on: streamID, context: context)
        }

        private func perform(_ actions: [Action], on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
            for action in actions {
                switch action {
                case .respond(let status, let reason):
                    respond(status: status, reason: reason, on: streamID, context: context)
                case .stall:
                    break
                case .goAway(let reason):
                    let lowest = Int(open.min() ?? streamID)
                    goAway(lastStreamID: HTTP2StreamID(max(0, lowest - 2)), reason: reason, context: context)
                case .goAwayAfterAnswering(let status, let reason):
                    goAway(lastStreamID: streamID, reason: reason, context: context)
                    respond(status: status, reason: reason, on: streamID, context: context)
                case .settings(let maximum, let then):
                    context.writeAndFlush(
                        wrapOutboundOut(
                            HTTP2Frame(
                                streamID: .rootStream,
                                payload: .settings(
                                    .settings([
                                        HTTP2Setting(parameter: .maxConcurrentStreams, value: maximum)
                                    ])))), promise: nil)
                    perform(then, on: streamID, context: context)
                case .delay(let duration, let then):
                    let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
                    let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
                    context.eventLoop.scheduleTask(
                        in: .nanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
                    ) {
                        handler.value.perform(then, on: streamID, context: loopContext.value)
                    }
                case .close:
                    context.close(promise: nil)
                case .reset(let code):
                    open.remove(streamID)
                    context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(code))), promise: nil)
                }
            }
        }

        private func respond(status: Int, reason: String?, on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
            open.remove(streamID)
            if status == 200, !raised, let afterFirstSuccess {
                raised = true
                context.write(
                    wrapOutboundOut(
                        HTTP2Frame(
                            streamID: .rootStream,
                            payload: .settings(
                                .settings([
                                    HTTP2Setting(parameter: .maxConcurrentStreams, value: afterFirstSuccess)
                                ])))), promise: nil)
            }
            var headers = HPACKHeaders([(":status", String(status)), ("apns-id", partialID(streamID))])
            if let reason {
                headers.add(name: "content-type", value: "application/json")
                context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers)))), promise: nil)
                let body = context.channel.allocator.buffer(string: #"{"reason":"\#(reason)"}"#)
                context.writeAndFlush(
                    wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
            } else {
                headers.add(name: "apns-unique-id", value: "00000000-0000-4000-8000-\(String(format: "%012d", Int(streamID)))")
                context.writeAndFlush(
                    wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))), promise: nil)
            }
        }

        /// Echoes the request's apns-id.
        private func partialID(_ streamID: HTTP2StreamID) -> String {
            box.state.withLock { state in
                state.requests.last { $0.connection == connection && $0.streamID == Int(streamID) }?.headers["apns-id"] ?? ""
            }
        }

        private func goAway(lastStreamID: HTTP2StreamID, reason: String, context: ChannelHandlerContext) {
            let debug = context.channel.allocator.buffer(string: #"{"reason":"\#(reason)"}"#)
            context.writeAndFlush(
                wrapOutboundOut(
                    HTTP2Frame(
                        streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debug)
                    )), promise: nil)
        }
    }
}
