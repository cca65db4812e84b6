import CSystemd

/// The thread that owns one sd-bus connection: it runs the mailbox's jobs, lets sd-bus read, write and dispatch,
/// and waits. Everything here happens on that thread only.
final class BusThread {
    /// A C callback's Swift side: sd-bus gets the box's address as userdata; the box lives in this thread's tables.
    final class Callback {
        let body: (OpaquePointer, UnsafeMutablePointer<sd_bus_error>?) -> Int32
        init(_ body: @escaping (OpaquePointer, UnsafeMutablePointer<sd_bus_error>?) -> Int32) { self.body = body }
    }

    private struct Subscription {
        var slot: OpaquePointer?
        var callback: Callback
        var end: () -> Void
    }

    let bus: OpaquePointer
    private let mailbox: BusMailbox
    private var pendingCalls: [Int: (Callback, (Result<[DBusValue], DBusError>) -> Void)] = [:]
    private var subscriptions: [Int: Subscription] = [:]
    /// Method calls answered later (``export(path:answering:)``), held (referenced) until they are.
    private var heldCalls: [Int: OpaquePointer] = [:]
    /// Numbers pending calls and subscriptions.
    private var lastID = 0

    private init(bus: OpaquePointer, mailbox: BusMailbox) {
        self.bus = bus
        self.mailbox = mailbox
    }

    /// The thread's body: connects, reports the outcome through `started`, then serves until stopped or the bus goes.
    static func run(address: String, mailbox: BusMailbox, started: (Result<String, DBusError>) -> Void) {
        var created: OpaquePointer?
        var result = sd_bus_new(&created)
        guard result >= 0, let bus = created else {
            _ = mailbox.close()
            return started(.failure(.system("sd_bus_new", errno: -result)))
        }
        result = address.withCString { sd_bus_set_address(bus, $0) }
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        // Waits for the bus's answer to Hello: an address that answers but is no bus fails here, not on first use.
        var unique: UnsafePointer<CChar>?
        if result >= 0 { result = sd_bus_get_unique_name(bus, &unique) }
        guard result >= 0, let unique else {
            sd_bus_flush_close_unref(bus)
            for job in mailbox.close() { job(nil) }
            return started(.failure(.unreachable(address: address, errno: -result)))
        }
        started(.success(String(cString: unique)))
        BusThread(bus: bus, mailbox: mailbox).serve()
    }

    private func serve() {
        while true {
            let (jobs, stop) = mailbox.take()
            for job in jobs { job(self) }
            if stop { break }
            var processed: Int32
            repeat { processed = sd_bus_process(bus, nil) } while processed > 0
            // Negative: the connection is gone (reset, or closed by the bus).
            if processed < 0 || herald_bus_wait(bus, mailbox.wakeDescriptor) < 0 { break }
        }
        tearDown()
    }

    private func tearDown() {
        for (_, subscription) in subscriptions {
            sd_bus_slot_unref(subscription.slot)
            subscription.end()
        }
        subscriptions = [:]
        for (_, call) in heldCalls { sd_bus_message_unref(call) }
        heldCalls = [:]
        sd_bus_flush_close_unref(bus)
        let unanswered = pendingCalls.values.map(\.1)
        pendingCalls = [:]
        for complete in unanswered { complete(.failure(.closed)) }
        for job in mailbox.close() { job(nil) }
    }

    // MARK: Jobs

    func startCall(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue], timeout: UInt64,
        completion: @escaping (Result<[DBusValue], DBusError>) -> Void
    ) {
        do throws(DBusError) {
            let message = try newMessage { message in
                sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
            }
            defer { sd_bus_message_unref(message) }
            try DBusMessageCoding.append(arguments, to: message)
            lastID += 1
            let id = lastID
            let callback = Callback { [unowned self] reply, _ in
                finishCall(id, reply)
                return 1
            }
            pendingCalls[id] = (callback, completion)
            let userdata = Unmanaged.passUnretained(callback).toOpaque()
            let sent = sd_bus_call_async(bus, nil, message, Self.dispatch, userdata, timeout)
            if sent < 0 {
                pendingCalls[id] = nil
                throw DBusError.system("call \(interface).\(member)", errno: -sent)
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// The reply to a call, read and handed to whoever waits for it.
    private func finishCall(_ id: Int, _ reply: OpaquePointer) {
        guard let (_, complete) = pendingCalls.removeValue(forKey: id) else { return }
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let error = sd_bus_message_get_error(reply)
            let name = error?.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            let text = error?.pointee.message.map { String(cString: $0) } ?? ""
            return complete(.failure(.remote(name: name, message: text)))
        }
        complete(Result { () throws(DBusError) in try DBusMessageCoding.readAll(from: reply) })
    }

    func emit(path: String, interface: String, member: String, arguments: [DBusValue]) throws(DBusError) {
        let message = try newMessage { message in sd_bus_message_new_signal(bus, &message, path, interface, member) }
        defer { sd_bus_message_unref(message) }
        try DBusMessageCoding.append(arguments, to: message)
        try DBusMessageCoding.check(sd_bus_send(bus, message, nil), "send signal \(interface).\(member)")
    }

    func subscribe(_ match: DBusMatch, _ continuation: AsyncStream<DBusSignal>.Continuation) throws(DBusError) -> Int {
        let callback = Callback { message, _ in
            if let signal = try? Self.signal(message) { continuation.yield(signal) }
            return 0
        }
        var slot: OpaquePointer?
        let userdata = Unmanaged.passUnretained(callback).toOpaque()
        try DBusMessageCoding.check(
            sd_bus_add_match(bus, &slot, match.rule, Self.dispatch, userdata), "add match \(match.rule)")
        lastID += 1
        subscriptions[lastID] = Subscription(slot: slot, callback: callback, end: { continuation.finish() })
        return lastID
    }

    func unsubscribe(_ id: Int) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        sd_bus_slot_unref(subscription.slot)
    }

    func export(path: String, _ handler: @escaping @Sendable (DBusMethodCall) -> DBusReply) throws(DBusError) {
        let callback = Callback { [unowned self] message, error in
            var type: UInt8 = 0
            guard sd_bus_message_get_type(message, &type) >= 0, type == UInt8(SD_BUS_MESSAGE_METHOD_CALL),
                let call = try? Self.methodCall(message)
            else { return 0 }
            switch handler(call) {
            case .values(let values):
                return reply(to: message, with: values)
            case .signalsThenValues(let signals, let values):
                for signal in signals {
                    try? emit(path: signal.path, interface: signal.interface, member: signal.member, arguments: signal.body)
                }
                return reply(to: message, with: values)
            case .error(let name, let text):
                return herald_bus_error(error, name, text)
            }
        }
        var slot: OpaquePointer?
        let userdata = Unmanaged.passUnretained(callback).toOpaque()
        try DBusMessageCoding.check(sd_bus_add_object(bus, &slot, path, Self.dispatch, userdata), "export \(path)")
        lastID += 1
        subscriptions[lastID] = Subscription(slot: slot, callback: callback, end: {})
    }

    /// Like ``export(path:_:)``, but `handler` answers later, off the bus thread: the call is held until then.
    func export(path: String, answering handler: @escaping @Sendable (DBusMethodCall) async -> DBusReply) throws(DBusError) {
        let mailbox = self.mailbox
        let callback = Callback { [unowned self] message, _ in
            var type: UInt8 = 0
            guard sd_bus_message_get_type(message, &type) >= 0, type == UInt8(SD_BUS_MESSAGE_METHOD_CALL),
                let call = try? Self.methodCall(message)
            else { return 0 }
            lastID += 1
            let id = lastID
            heldCalls[id] = sd_bus_message_ref(message)
            Task {
                let answer = await handler(call)
                mailbox.post { $0?.answerHeld(id, answer) }
            }
            return 1
        }
        var slot: OpaquePointer?
        let userdata = Unmanaged.passUnretained(callback).toOpaque()
        try DBusMessageCoding.check(sd_bus_add_object(bus, &slot, path, Self.dispatch, userdata), "export \(path)")
        lastID += 1
        subscriptions[lastID] = Subscription(slot: slot, callback: callback, end: {})
    }

    /// Sends the answer to a held call (none to a call that asked for none) and lets it go.
    private func answerHeld(_ id: Int, _ answer: DBusReply) {
        guard let call = heldCalls.removeValue(forKey: id) else { return }
        defer { sd_bus_message_unref(call) }
        switch answer {
        case .values(let values):
            _ = reply(to: call, with: values)
        case .signalsThenValues(let signals, let values):
            for signal in signals {
                try? emit(path: signal.path, interface: signal.interface, member: signal.member, arguments: signal.body)
            }
            _ = reply(to: call, with: values)
        case .error(let name, let text):
            name.withCString { name in
                text.withCString { text in
                    var error = sd_bus_error(name: name, message: text, _need_free: 0)
                    var message: OpaquePointer?
                    guard sd_bus_message_new_method_error(call, &message, &error) >= 0, let message else { return }
                    _ = sd_bus_send(bus, message, nil)
                    sd_bus_message_unref(message)
                }
            }
        }
    }

    private func reply(to call: OpaquePointer, with values: [DBusValue]) -> Int32 {
        do throws(DBusError) {
            var made: OpaquePointer?
            let result = sd_bus_message_new_method_return(call, &made)
            // A call sent with NO_REPLY_EXPECTED (a v1 UnifiedPush Unregister, say) takes no reply: sd-bus says EPERM.
            if result == -EPERM { return 1 }
            guard result >= 0, let message = made else { throw DBusError.system("new message", errno: -result) }
            defer { sd_bus_message_unref(message) }
            try DBusMessageCoding.append(values, to: message)
            try DBusMessageCoding.check(sd_bus_send(bus, message, nil), "send reply")
            return 1
        } catch {
            return -EIO
        }
    }

    // MARK: Helpers

    /// The one C entry point for matches and objects: the userdata is a ``Callback``.
    private static let dispatch: sd_bus_message_handler_t = { message, userdata, error in
        guard let message, let userdata else { return 0 }
        return Unmanaged<Callback>.fromOpaque(userdata).takeUnretainedValue().body(message, error)
    }

    private func newMessage(_ make: (inout OpaquePointer?) -> Int32) throws(DBusError) -> OpaquePointer {
        var message: OpaquePointer?
        let result = make(&message)
        guard result >= 0, let message else { throw .system("new message", errno: -result) }
        return message
    }

    private static func signal(_ message: OpaquePointer) throws(DBusError) -> DBusSignal {
        DBusSignal(
            path: text(sd_bus_message_get_path(message)), interface: text(sd_bus_message_get_interface(message)),
            member: text(sd_bus_message_get_member(message)), sender: sd_bus_message_get_sender(message).map { String(cString: $0) },
            body: try DBusMessageCoding.readAll(from: message)
        )
    }

    private static func methodCall(_ message: OpaquePointer) throws(DBusError) -> DBusMethodCall {
        DBusMethodCall(
            path: text(sd_bus_message_get_path(message)), interface: text(sd_bus_message_get_interface(message)),
            member: text(sd_bus_message_get_member(message)), sender: sd_bus_message_get_sender(message).map { String(cString: $0) },
            body: try DBusMessageCoding.readAll(from: message)
        )
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}
