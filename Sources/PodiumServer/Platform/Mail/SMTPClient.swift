import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Where mail goes: an SMTP relay (`--smtp-url smtp://user:password@host:587`).
public struct SMTPRelay: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: String, Sendable, Equatable {
        /// `smtp://`: STARTTLS whenever the relay offers it (as Microsoft 365's and Google's
        /// relays on port 587 do), the certificate checked; plain only with a relay that offers
        /// none (a local Postfix), and then never with a password.
        case startTLS
        /// `smtps://`: TLS from the first byte (port 465).
        case implicitTLS
        /// `smtp://…?tls=off`: plain SMTP even when STARTTLS is offered, for a relay on the same
        /// host whose certificate cannot be checked (Debian's Postfix offers STARTTLS with a
        /// self-signed certificate). The one choice that sends a password in the clear.
        case none
    }

    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    public var security: Security
    /// A CA the relay's certificate may be signed by besides the system's (a school's own CA;
    /// `PODIUM_SMTP_CA_FILE`).
    public var trustedCAFile: String?

    public init(
        host: String, port: Int = 25, username: String? = nil, password: String? = nil, security: Security = .startTLS,
        trustedCAFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.security = security
        self.trustedCAFile = trustedCAFile
    }

    /// `smtp://[user[:password]@]host[:port][?tls=off]` or `smtps://…` (user and password
    /// percent-encoded); nil when it is not such a URL. The port is 25 (smtps: 465) unless given.
    public init?(url text: String) {
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else { return nil }
        let tlsOff = components.queryItems?.contains { $0.name == "tls" && $0.value?.lowercased() == "off" } ?? false
        switch components.scheme?.lowercased() {
        case "smtp": security = tlsOff ? .none : .startTLS
        case "smtps" where !tlsOff: security = .implicitTLS
        default: return nil
        }
        self.host = host
        self.port = components.port ?? (security == .implicitTLS ? 465 : 25)
        self.username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
        self.password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        self.trustedCAFile = nil
    }
}

/// A plain-text message.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    /// The language it is written in (`Content-Language`), when known.
    public var language: String?

    public init(to: String, subject: String, text: String, language: String? = nil) {
        self.to = to
        self.subject = subject
        self.text = text
        self.language = language
    }
}

/// Why a message was not sent: the relay's reply (code and text), or what went wrong on the way.
public struct SMTPError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// A small SMTP client (RFC 5321) on SwiftNIO: one connection per message, EHLO, STARTTLS
/// (RFC 3207) when the relay offers it and EHLO again, AUTH PLAIN when the relay is given a user,
/// MAIL, RCPT, DATA, QUIT; or all of it inside TLS from the start (`smtps://`). The relay's
/// certificate is checked against the system's CAs (and `trustedCAFile`) and its name. The whole
/// exchange has a time limit.
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
        let tls = try Self.tlsContext(relay)
        let implicitTLS = relay.security == .implicitTLS
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: relay.host, port: relay.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(Self.tlsHandler(tls, host: relay.host))
                        }
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
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
            var hello = try await command("EHLO \(heloName)", expect: [250], what: "EHLO")
            var secured = implicitTLS
            if !secured, relay.security == .startTLS, hello.lines.contains(where: { $0.uppercased() == "STARTTLS" }) {
                _ = try await command("STARTTLS", expect: [220], what: "STARTTLS")
                // Nothing more comes in the clear: the relay waits for the handshake, which the
                // handler (nearest the socket) begins as it is added; what follows goes inside it.
                try await channel.channel.pipeline.addHandler(
                    try Self.tlsHandler(tls, host: relay.host), position: .first
                ).get()
                hello = try await command("EHLO \(heloName)", expect: [250], what: "EHLO after STARTTLS")
                secured = true
            }
            _ = hello
            if let username = relay.username {
                guard secured || relay.security == .none else {
                    throw SMTPError(
                        description: "the relay offers no STARTTLS: its password is not sent in the clear (use smtps://)")
                }
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

    private static func tlsContext(_ relay: SMTPRelay) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = relay.trustedCAFile { configuration.additionalTrustRoots = [.file(file)] }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SMTPError(description: "TLS for the relay could not be set up: \(error)")
        }
    }

    /// The TLS handler of a connection to `host`: its name checked against the certificate (an
    /// address is checked as an address, and not sent as the server name, which TLS forbids).
    private static func tlsHandler(_ context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        let isAddress =
            host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" } && host.contains(where: { $0 == "." || $0 == ":" })
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
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
        let subject = encodedHeader(message.subject)
        var headers = [
            "From: \(mailbox(from))", "To: \(message.to)", "Subject: \(subject)", "Date: \(formatter.string(from: date))",
            "Message-ID: <\(messageID)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ]
        if let language = message.language, language.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) {
            headers.append("Content-Language: \(language)")
        }
        let body = message.text.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        return (headers + [""] + body).joined(separator: "\r\n")
    }

    /// A `Name <address>` header as sent: a name that is not ASCII (a school's, `Gymnázium
    /// Brno`) as encoded words, the address as it is.
    static func mailbox(_ text: String) -> String {
        guard !text.allSatisfy(\.isASCII), let open = text.lastIndex(of: "<") else { return encodedHeader(text) }
        let name = text[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return encodedHeader(name) + " " + String(text[open...])
    }

    /// A header's text as sent: itself when it is ASCII; else encoded words (RFC 2047, UTF-8,
    /// base64), each of at most 64 characters and of whole characters (a character is never cut
    /// between two words, which readers would show as garbage), on folded lines.
    static func encodedHeader(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        guard !line.allSatisfy(\.isASCII) else { return line }
        // 39 bytes make 52 characters of base64; with `=?UTF-8?B?` and `?=`, 64: with `Subject: `
        // before it, a line of 73 (RFC 2047: at most 76 on a line with encoded words).
        var words: [String] = []
        var chunk = Data()
        for character in line {
            let bytes = Data(String(character).utf8)
            if chunk.count + bytes.count > 39, !chunk.isEmpty {
                words.append(chunk.base64EncodedString())
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty { words.append(chunk.base64EncodedString()) }
        return words.map { "=?UTF-8?B?\($0)?=" }.joined(separator: "\r\n ")
    }

    struct Reply {
        var code: Int
        var text: String
        /// Each line's text (EHLO's extensions, one a line).
        var lines: [String] = []
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
                    return Reply(code: code, text: text.joined(separator: " "), lines: text)
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
