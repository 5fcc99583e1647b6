import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One viewer socket: says hello (Podium), then records every page and pointer event it gets.
enum Viewer {
    /// - Parameter stall: stop reading after the welcome, like a phone whose network froze.
    static func run(target: Target, stats: Stats, ready: Counter, stall: Bool, group: any EventLoopGroup, logger: Logger)
        async throws
    {
        let url: String
        switch target {
        case .podium(let podium, _): url = podium
        case .nchan(let sub, _): url = sub
        }
        try await WebSocketClient.connect(
            url: url, configuration: .init(maxFrameSize: 1 << 20), eventLoopGroup: group, logger: logger
        ) { inbound, outbound, _ in
            var seen = Set<Int>()
            if case .podium = target {
                try await outbound.write(.text(#"{"type":"hello","role":"viewer"}"#))
            } else {
                ready.increment()
                if stall { try await Task.sleep(for: .seconds(3600)) }
            }
            for try await frame in inbound {
                let bytes = frame.data.readableBytesView
                if bytes.starts(with: Array(#"{"type":"welcome""#.utf8)) || Wire.contains(bytes, #""type":"welcome""#) {
                    ready.increment()
                    if stall {
                        // Never read again: the server's writes back up until it cuts this socket off.
                        try await Task.sleep(for: .seconds(3600))
                    }
                } else if Wire.contains(bytes, #""type":"page""#), let seq = Wire.integer(after: #""seq":"#, in: bytes) {
                    stats.receivedPage(seq, duplicate: !seen.insert(seq).inserted)
                } else if Wire.contains(bytes, #""type":"pointer""#), let x = Wire.double(after: #""x":"#, in: bytes) {
                    // The pointer's number n is sent as x = n / 1,000,000 (a JSON encoder may drop trailing zeros).
                    stats.receivedPointer(Int((x * 1_000_000).rounded()))
                }
            }
        }
    }
}

/// Publishes page events and pointer moves at fixed rates, as a presenter would.
enum Publisher {
    static func run(
        target: Target, stats: Stats, pageRate: Double, pointerRate: Double, seconds: Double, group: any EventLoopGroup,
        logger: Logger
    ) async throws {
        switch target {
        case .podium(let url, let token):
            try await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: 1 << 20), eventLoopGroup: group, logger: logger
            ) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"hello","role":"presenter","token":"\#(token)"}"#))
                var iterator = inbound.makeAsyncIterator()
                _ = try await iterator.next()  // welcome
                // The presenter's acks and errors: a command the server refused (the per-socket rate
                // limit, when a stalled generator sends a burst) is an event nobody can receive.
                let drain = Task {
                    while let frame = try? await iterator.next() {
                        if Wire.contains(frame.data.readableBytesView, #""type":"error""#) { stats.refusedCommand() }
                    }
                }
                try await schedule(stats: stats, pageRate: pageRate, pointerRate: pointerRate, seconds: seconds) {
                    page, pointer in
                    if let page {
                        try await outbound.write(.text(#"{"type":"goto","id":"g\#(page)","page":\#(2 + page % 2)}"#))
                    }
                    if let pointer {
                        try await outbound.write(.text(#"{"type":"pointer","x":0.\#(Wire.sixDigits(pointer)),"y":0.5}"#))
                    }
                }
                drain.cancel()
                try await outbound.close(.normalClosure, reason: nil)
            }
        case .nchan(_, let pub):
            let session = URLSession(configuration: .ephemeral)
            // Publish without waiting for each POST to return (nchan answers after fanning out),
            // so the rate holds as it does for Podium's presenter socket.
            try await withThrowingTaskGroup(of: Void.self) { posts in
                try await schedule(stats: stats, pageRate: pageRate, pointerRate: pointerRate, seconds: seconds) {
                    page, pointer in
                    var request = URLRequest(url: URL(string: pub)!)
                    request.httpMethod = "POST"
                    if let page { request.httpBody = Data(#"{"type":"page","seq":\#(page),"page":\#(2 + page % 2)}"#.utf8) }
                    if let pointer {
                        request.httpBody = Data(#"{"type":"pointer","x":0.\#(Wire.sixDigits(pointer)),"y":0.5}"#.utf8)
                    }
                    let sending = request
                    posts.addTask { _ = try await session.data(for: sending) }
                }
                try await posts.waitForAll()
            }
        }
    }

    /// Calls `send` with page event n (from 1) and pointer move m (from 1) at their rates.
    static func schedule(
        stats: Stats, pageRate: Double, pointerRate: Double, seconds: Double, send: (Int?, Int?) async throws -> Void
    ) async throws {
        let start = Stats.now()
        var pages = 0
        var pointers = 0
        while true {
            let elapsed = Stats.now() - start
            if elapsed >= seconds { return }
            let nextPage = Double(pages) / pageRate
            let nextPointer = pointerRate > 0 ? Double(pointers) / pointerRate : .infinity
            let due = min(nextPage, nextPointer)
            if due > elapsed { try await Task.sleep(for: .microseconds(Int((due - elapsed) * 1e6))) }
            if nextPage <= nextPointer {
                pages += 1
                stats.sentPage(pages)
                try await send(pages, nil)
            } else {
                pointers += 1
                stats.sentPointer(pointers)
                try await send(nil, pointers)
            }
        }
    }
}

/// Just enough scanning of JSON text to find a number without decoding every frame.
enum Wire {
    static func contains(_ bytes: ByteBufferView, _ needle: String) -> Bool {
        index(of: Array(needle.utf8), in: bytes) != nil
    }

    static func integer(after prefix: String, in bytes: ByteBufferView) -> Int? {
        guard var index = self.index(of: Array(prefix.utf8), in: bytes) else { return nil }
        var value = 0
        var digits = 0
        while index < bytes.endIndex, let digit = Int(exactly: bytes[index]).map({ $0 - 48 }), (0...9).contains(digit) {
            value = value * 10 + digit
            digits += 1
            index = bytes.index(after: index)
        }
        return digits > 0 ? value : nil
    }

    static func double(after prefix: String, in bytes: ByteBufferView) -> Double? {
        guard var index = self.index(of: Array(prefix.utf8), in: bytes) else { return nil }
        var text = ""
        while index < bytes.endIndex, "0123456789.eE+-".utf8.contains(bytes[index]) {
            text.append(Character(UnicodeScalar(bytes[index])))
            index = bytes.index(after: index)
        }
        return Double(text)
    }

    /// The pointer number as the six digits after "0." (JSON keeps them as sent).
    static func sixDigits(_ n: Int) -> String {
        let text = String(n % 1_000_000)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    static func index(of needle: [UInt8], in bytes: ByteBufferView) -> ByteBufferView.Index? {
        guard needle.count <= bytes.count else { return nil }
        var start = bytes.startIndex
        while start <= bytes.endIndex - needle.count {
            if bytes[start] == needle[0], bytes[start..<(start + needle.count)].elementsEqual(needle) {
                return start + needle.count
            }
            start += 1
        }
        return nil
    }
}
