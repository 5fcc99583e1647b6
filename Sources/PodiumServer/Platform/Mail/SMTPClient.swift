import Foundation
import NIOCore
import NIOPosix

/// Where mail goes: an SMTP relay (`--smtp-url smtp://user:password@host:587`).
public struct SMTPRelay: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?

    public init(host: String, port: Int = 25, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// `smtp://[user[:password]@]host[:port]` (user and password percent-encoded); nil when it
    /// is not such a URL. The port is 25 unless given.
    public init?(url text: String) {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "smtp",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.host = host
        self.port = components.port ?? 25
        self.username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
        self.password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
    }
}

/// A plain-text message.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var text: String

    public init(to: String, subject: String, text: String) {
        self.to = to
        self.subject = subject
        self.text = text
    }
}

/// Why a message was not sent: the relay's reply (code and text), or what went wrong on the way.
public struct SMTPError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// A small SMTP client (RFC 5321) on SwiftNIO: one connection per message, EHLO, AUTH PLAIN when
/// the relay is given a user, MAIL, RCPT, DATA, QUIT. The whole exchange has a time limit.
///
/// Not done: STARTTLS. Use a relay on the same host or network (a local Postfix that relays on
/// with TLS), as docs/operations.md says.
struct SMTPClient: Sendable {
    let relay: SMTPRelay
    /// The envelope's and the header's sender.
    let from: String
    /// The name this server gives in EHLO.
    var heloName = "podium.localdomain"
    var timeout: Duration = .seconds(30)

    func send(_ message: MailMessage, date: Date = Date()) async throws {
        let relay = self.relay
        let data = Self.format(message, from: from, date: date, messageID: "\(UUID().uuidString)@\(heloName)")
        let timeout = self.timeout
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.exchange(relay: relay, message: message, data: data) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw SMTPError(description: "the relay did not answer within \(timeout)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func exchange(relay: SMTPRelay, message: MailMessage, data: String) async throws {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: relay.host, port: relay.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SMTPError(description: "could not connect to \(relay.host):\(relay.port): \(error)")
        }
        try await channel.executeThenClose { inbound, outbound in
            var replies = ReplyReader(inbound.makeAsyncIterator())
            try await replies.expect(220, after: "connecting")
            func command(_ line: String, expect codes: Set<Int>, what: String) async throws -> Reply {
                try await outbound.write(ByteBuffer(string: line + "\r\n"))
                return try await replies.expect(codes, after: what)
            }
            _ = try await command("EHLO \(heloName)", expect: [250], what: "EHLO")
            if let username = relay.username {
                let credentials = Data(("\0" + username + "\0" + (relay.password ?? "")).utf8).base64EncodedString()
                _ = try await command("AUTH PLAIN \(credentials)", expect: [235], what: "AUTH")
            }
            _ = try await command("MAIL FROM:<\(Self.address(from))>", expect: [250], what: "MAIL FROM")
            _ = try await command("RCPT TO:<\(Self.address(message.to))>", expect: [250, 251], what: "RCPT TO")
            _ = try await command("DATA", expect: [354], what: "DATA")
            _ = try await command(data + "\r\n.", expect: [250], what: "the message")
            try? await outbound.write(ByteBuffer(string: "QUIT\r\n"))
            _ = try? await replies.next()
        }
    }

    /// The bare address of `Name <address>` or of an address.
    static func address(_ text: String) -> String {
        if let open = text.lastIndex(of: "<"), let close = text.lastIndex(of: ">"), open < close {
            return String(text[text.index(after: open)..<close])
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// The message as sent after DATA: headers, a blank line, the text with CRLF line ends and
    /// dot-stuffed (a line that starts with a dot gets another). UTF-8 text, 8 bit; a subject that
    /// is not ASCII is an encoded word (RFC 2047).
    static func format(_ message: MailMessage, from: String, date: Date, messageID: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let subject =
            message.subject.allSatisfy { $0.isASCII && !$0.isNewline }
            ? message.subject : "=?UTF-8?B?\(Data(message.subject.utf8).base64EncodedString())?="
        let headers = [
            "From: \(from)", "To: \(message.to)", "Subject: \(subject)", "Date: \(formatter.string(from: date))",
            "Message-ID: <\(messageID)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ]
        let body = message.text.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        return (headers + [""] + body).joined(separator: "\r\n")
    }

    struct Reply {
        var code: Int
        var text: String
    }

    /// Reads replies: lines `250-…` go on, `250 …` ends one.
    struct ReplyReader {
        var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        var pending = ""

        init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
            self.iterator = iterator
        }

        mutating func line() async throws -> String? {
            while true {
                if let end = pending.range(of: "\r\n") {
                    let line = String(pending[..<end.lowerBound])
                    pending.removeSubrange(..<end.upperBound)
                    return line
                }
                guard pending.utf8.count < 64 * 1024, var buffer = try await iterator.next() else { return nil }
                pending += buffer.readString(length: buffer.readableBytes) ?? ""
            }
        }

        mutating func next() async throws -> Reply {
            var text: [String] = []
            while let line = try await line() {
                guard line.utf8.count >= 3, let code = Int(line.prefix(3)) else {
                    throw SMTPError(description: "the relay's reply is not SMTP: \(line.prefix(80))")
                }
                text.append(String(line.dropFirst(4)))
                if line.utf8.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] != "-" {
                    return Reply(code: code, text: text.joined(separator: " "))
                }
            }
            throw SMTPError(description: "the relay closed the connection")
        }

        @discardableResult
        mutating func expect(_ codes: Set<Int>, after what: String) async throws -> Reply {
            let reply = try await next()
            guard codes.contains(reply.code) else {
                throw SMTPError(description: "the relay answered \(what) with \(reply.code) \(reply.text)")
            }
            return reply
        }

        @discardableResult
        mutating func expect(_ code: Int, after what: String) async throws -> Reply {
            try await expect([code], after: what)
        }
    }
}
