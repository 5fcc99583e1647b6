import NIOCore
import NIOHTTP1
import Synchronization

struct PublishOptions: Sendable {
    var pageRate: Double
    var pointerRate: Double
    var seconds: Double
    /// Page events as fast as the server takes them, `window` unanswered at most; no pointer.
    var saturate: Bool
    var window: Int
}

/// What the publisher sent and when (µs, `Clock`), and what the server answered. Touched once
/// per command, never per delivery.
final class Ledger: Sendable {
    struct State {
        /// Send time of page event n at index n (index 0 unused).
        var pageSent: [UInt64] = [0]
        var pointerSent: [UInt64] = [0]
        /// Page commands answered: acked (Podium) or a 2xx response (nchan).
        var acknowledged = 0
        /// Commands the server refused with an error (Podium: `rate_limited`, say).
        var refused = 0
        /// POSTs that failed or timed out (nchan), or were never answered.
        var failed = 0
        /// Acks whose `seq` is not the page number sent: latency would be matched wrongly.
        var seqMismatches = 0
        /// Seconds from sending a page command to its answer (nchan answers after the fan-out).
        var answerTimes: [Double] = []
        /// When page event n was answered (µs, `Clock`), for `--trace`.
        var answeredAt: [Int: UInt64] = [:]

        mutating func answered(page n: Int) {
            guard n >= 1, n < pageSent.count else { return }
            let now = Clock.micros()
            answerTimes.append(Double(now - pageSent[n]) / 1e6)
            answeredAt[n] = now
        }
    }

    let state = Mutex(State())

    func sentPage() -> Int {
        state.withLock {
            $0.pageSent.append(Clock.micros())
            return $0.pageSent.count - 1
        }
    }

    func sentPointer() -> Int {
        state.withLock {
            $0.pointerSent.append(Clock.micros())
            return $0.pointerSent.count - 1
        }
    }

    var pagesSent: Int { state.withLock { $0.pageSent.count - 1 } }
    var snapshot: State { state.withLock { $0 } }
}

/// Publishes page events and pointer moves, as a presenter would: at fixed rates, or (saturate)
/// page events only, as fast as the server answers them with a bounded window in flight.
enum Publisher {
    static func run(target: Target, options: PublishOptions, ledger: Ledger, loop: any EventLoop) async throws {
        switch target {
        case .podium(let url, let token):
            try await podium(url: try WebSocketURL(url), token: token, options: options, ledger: ledger, loop: loop)
        case .nchan(_, let pub):
            try await nchan(url: try WebSocketURL(pub), options: options, ledger: ledger, loop: loop)
        }
    }

    static func gotoFrame(_ n: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        OutgoingFrame.text(#"{"type":"goto","id":"g\#(n)","page":\#(2 + n % 2)}"#, allocator: allocator)
    }

    static func pointerText(_ n: Int) -> String {
        #"{"type":"pointer","x":0.\#(Wire.sixDigits(n)),"y":0.5}"#
    }

    // MARK: Podium: one presenter socket

    /// Changes pages `pages` times, each after the last was acknowledged, on a presenter socket
    /// of its own. A server's first commands do one-time work (its runtime fills the caches of
    /// type metadata and protocol conformances on the command path, more of it the more types the
    /// binary holds): an instruction count of the fan-out that starts after this measures each
    /// delivery, not that. The pages alternate 3 and 1 (ids `w<n>`), so the run's first
    /// `goto` (page 2) changes the page whatever the count.
    static func warmUp(url: WebSocketURL, token: String, pages: Int, loop: any EventLoop) async throws {
        let (events, continuation) = AsyncStream.makeStream(of: PresenterEvent.self)
        let welcome = loop.makePromise(of: Void.self)
        loop.scheduleTask(in: .seconds(10)) { welcome.fail(LoadError("warm-up presenter: no welcome within 10 s")) }
        let channel = try await WebSocketClient.connect(url, on: loop) {
            PresenterReceiver(token: token, welcome: welcome, events: continuation)
        }.get()
        try await welcome.futureResult.get()
        var answers = events.makeAsyncIterator()
        for n in 0..<pages {
            let frame = #"{"type":"goto","id":"w\#(n)","page":\#(n % 2 == 0 ? 3 : 1)}"#
            channel.writeAndFlush(OutgoingFrame.text(frame, allocator: channel.allocator), promise: nil)
            switch await answers.next() {
            case .ack: continue
            case let other: throw LoadError("warm-up page \(n): \(other.map { "\($0)" } ?? "the socket ended")")
            }
        }
        channel.writeAndFlush(OutgoingFrame.close(allocator: channel.allocator), promise: nil)
        channel.close(promise: nil)
        continuation.finish()
    }

    static func podium(url: WebSocketURL, token: String, options: PublishOptions, ledger: Ledger, loop: any EventLoop)
        async throws
    {
        let (events, continuation) = AsyncStream.makeStream(of: PresenterEvent.self)
        let welcome = loop.makePromise(of: Void.self)
        loop.scheduleTask(in: .seconds(10)) { welcome.fail(LoadError("presenter: no welcome within 10 s")) }
        let channel = try await WebSocketClient.connect(url, on: loop) {
            PresenterReceiver(token: token, welcome: welcome, events: continuation)
        }.get()
        try await welcome.futureResult.get()
        let allocator = channel.allocator

        @Sendable func sendPage() {
            let n = ledger.sentPage()
            channel.writeAndFlush(gotoFrame(n, allocator: allocator), promise: nil)
        }
        var answered = 0
        func record(_ event: PresenterEvent) {
            switch event {
            case .ack(let id, let seq):
                guard let id else { return }
                answered += 1
                ledger.state.withLock {
                    $0.acknowledged += 1
                    $0.answered(page: id)
                    if seq != id { $0.seqMismatches += 1 }
                }
            case .refused(let id):
                if id != nil { answered += 1 }
                ledger.state.withLock { $0.refused += 1 }
            default:
                break
            }
        }

        if options.saturate {
            let end = Clock.micros() + UInt64(options.seconds * 1e6)
            let watchdog = Task {
                try await Task.sleep(for: .seconds(options.seconds + 10))
                continuation.yield(.timeout)
            }
            for _ in 0..<options.window { sendPage() }
            loop: for await event in events {
                if case .timeout = event { break loop }
                if case .closed = event { break loop }
                record(event)
                if Clock.micros() < end {
                    while ledger.pagesSent - answered < options.window { sendPage() }
                } else if ledger.pagesSent - answered <= 0 {
                    break loop
                }
            }
            watchdog.cancel()
        } else {
            let sender = Task {
                defer { continuation.yield(.senderDone) }
                try await schedule(options: options) { isPage in
                    if isPage {
                        sendPage()
                    } else {
                        let n = ledger.sentPointer()
                        channel.writeAndFlush(OutgoingFrame.text(pointerText(n), allocator: allocator), promise: nil)
                    }
                }
            }
            var watchdog: Task<Void, any Error>?
            loop: for await event in events {
                switch event {
                case .timeout, .closed:
                    break loop
                case .senderDone:
                    // Every goto answered, or 3 s after the last one: done.
                    watchdog = Task {
                        try await Task.sleep(for: .seconds(3))
                        continuation.yield(.timeout)
                    }
                default:
                    record(event)
                }
                if watchdog != nil, answered >= ledger.pagesSent { break loop }
            }
            watchdog?.cancel()
            try await sender.value
        }
        ledger.state.withLock { $0.failed += $0.pageSent.count - 1 - answered }
        channel.writeAndFlush(OutgoingFrame.close(allocator: allocator), promise: nil)
        channel.close(promise: nil)
        continuation.finish()
    }

    enum PresenterEvent: Sendable {
        /// `id` is n of the command's id `g<n>` (nil for commands without one).
        case ack(id: Int?, seq: Int?)
        case refused(id: Int?)
        case senderDone
        case timeout
        case closed
    }

    struct PresenterReceiver: FrameReceiver {
        let token: String
        let welcome: EventLoopPromise<Void>
        let events: AsyncStream<PresenterEvent>.Continuation

        func opened(now: UInt64, context: ChannelHandlerContext) -> FrameAction {
            let hello = #"{"type":"hello","role":"presenter","token":"\#(token)"}"#
            context.writeAndFlush(NIOAny(OutgoingFrame.text(hello, allocator: context.channel.allocator)), promise: nil)
            return .proceed
        }

        func text(_ payload: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext) -> FrameAction {
            switch Wire.messageType(payload) {
            case .welcome:
                welcome.succeed()
            case .ack:
                events.yield(
                    .ack(id: Wire.integer(after: Wire.gotoIDKey, in: payload), seq: Wire.integer(after: Wire.seqKey, in: payload))
                )
            case .error:
                welcome.fail(LoadError("presenter refused: \(String(decoding: payload, as: UTF8.self))"))
                events.yield(.refused(id: Wire.integer(after: Wire.gotoIDKey, in: payload)))
            default:
                break
            }
            return .proceed
        }

        func closed(upgraded: Bool) {
            welcome.fail(LoadError("presenter socket closed before its welcome"))
            events.yield(.closed)
        }
    }

    // MARK: nchan: HTTP POSTs

    static func nchan(url: WebSocketURL, options: PublishOptions, ledger: Ledger, loop: any EventLoop) async throws {
        @Sendable func body(page n: Int) -> ByteBuffer {
            ByteBuffer(string: #"{"type":"page","seq":\#(n),"page":\#(2 + n % 2)}"#)
        }
        @Sendable func record(_ result: Result<HTTPResult, any Error>, page: Int?) {
            ledger.state.withLock {
                if case .success(let response) = result, (200..<300).contains(response.status) {
                    if let page {
                        $0.acknowledged += 1
                        $0.answered(page: page)
                    }
                } else {
                    $0.failed += 1
                }
            }
        }
        if options.saturate {
            // `window` connections, each POSTing the next page event as soon as the last is answered
            // (nchan answers once it has fanned the message out).
            let end = Clock.micros() + UInt64(options.seconds * 1e6)
            try await withThrowingTaskGroup(of: Void.self) { workers in
                for _ in 0..<options.window {
                    workers.addTask {
                        var connection: HTTPConnection?
                        while Clock.micros() < end {
                            if connection == nil {
                                connection = try await HTTPConnection.connect(host: url.host, port: url.port, on: loop)
                            }
                            let n = ledger.sentPage()
                            let result = await attempt { [connection] in
                                try await connection!.request(.POST, url.path, body: body(page: n))
                            }
                            record(result, page: n)
                            // The server closes after so many requests (or failed): a new connection.
                            if case .success(let response) = result, response.keepAlive { continue }
                            connection?.close()
                            connection = nil
                        }
                        connection?.close()
                    }
                }
                try await workers.waitForAll()
            }
        } else {
            // Publish without waiting for each POST to return, so the rate holds as it does for
            // Podium's presenter socket.
            let pool = HTTPPool(host: url.host, port: url.port, loop: loop)
            defer { pool.closeAll() }
            await withTaskGroup(of: Void.self) { posts in
                try? await schedule(options: options) { isPage in
                    let n = isPage ? ledger.sentPage() : ledger.sentPointer()
                    let text = isPage ? String(buffer: body(page: n)) : pointerText(n)
                    posts.addTask {
                        let result = await attempt { try await pool.request(.POST, url.path, body: ByteBuffer(string: text)) }
                        record(result, page: isPage ? n : nil)
                    }
                }
                await posts.waitForAll()
            }
        }
    }

    /// Calls `send(true)` for page event n (from 1) and `send(false)` for pointer move m at their rates.
    static func schedule(options: PublishOptions, send: (Bool) async throws -> Void) async throws {
        let start = Clock.seconds()
        var pages = 0
        var pointers = 0
        while true {
            let elapsed = Clock.seconds() - start
            if elapsed >= options.seconds { return }
            let nextPage = Double(pages) / options.pageRate
            let nextPointer = options.pointerRate > 0 ? Double(pointers) / options.pointerRate : .infinity
            let due = min(nextPage, nextPointer)
            if due > elapsed { try await Task.sleep(for: .microseconds(Int((due - elapsed) * 1e6))) }
            if nextPage <= nextPointer {
                pages += 1
                try await send(true)
            } else {
                pointers += 1
                try await send(false)
            }
        }
    }
}

/// The outcome of `body`, error and all.
func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
