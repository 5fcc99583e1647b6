import Foundation
import Testing

@testable import PodiumServer

/// The SMTP client's own rules: the relay's URL, the message as sent (headers, CRLF, dot-stuffing,
/// a subject that is not ASCII), and a message through a real SMTP server whole, a line that starts
/// with a dot included; a relay that cannot be reached fails with a reason, not a hang.
@Suite("SMTP client", .timeLimit(.minutes(2)))
struct SMTPClientTests {
    @Test func theRelayIsReadFromItsURL() {
        #expect(SMTPRelay(url: "smtp://mail.school.example") == SMTPRelay(host: "mail.school.example", port: 25))
        #expect(
            SMTPRelay(url: "smtp://podium%40school.example:p%3Ass@mail.school.example:587")
                == SMTPRelay(host: "mail.school.example", port: 587, username: "podium@school.example", password: "p:ss"))
        #expect(SMTPRelay(url: "http://mail.school.example") == nil)
        #expect(SMTPRelay(url: "smtp://") == nil)
    }

    @Test func aMessageIsFormattedWithCRLFDotStuffingAndAnEncodedSubject() {
        let text = SMTPClient.format(
            MailMessage(to: "ada@school.test", subject: "Réinitialiser", text: "Hello\n.hidden line\n..two\nend"),
            from: "Podium <podium@school.test>", date: Date(timeIntervalSince1970: 0), messageID: "m1@podium")
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.contains("From: Podium <podium@school.test>"))
        #expect(lines.contains("To: ada@school.test"))
        #expect(lines.contains("Subject: =?UTF-8?B?\(Data("Réinitialiser".utf8).base64EncodedString())?="))
        #expect(lines.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000"))
        #expect(lines.contains("Content-Type: text/plain; charset=utf-8"))
        let body = Array(lines.drop { !$0.isEmpty }.dropFirst())
        #expect(body == ["Hello", "..hidden line", "...two", "end"])
        #expect(!text.contains("\n.\r\n") && !text.hasPrefix("."))
        #expect(SMTPClient.address("Podium <podium@school.test>") == "podium@school.test")
    }

    @Test func aMessageGoesThroughARealServerWhole() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let client = SMTPClient(relay: sink.relay, from: "Podium <podium@school.test>")
        try await client.send(
            MailMessage(to: "ada@school.test", subject: "Bonjour — 你好", text: "First line\n.a line with a dot\nLast line"))
        let message = try await sink.waitForMessage(to: "ada@school.test")
        #expect(message.contains("\r\n\r\nFirst line\r\n.a line with a dot\r\nLast line"))
        #expect(message.contains("Subject: =?UTF-8?B?"))
    }

    @Test func theSchemeSaysHowTheRelayIsProtected() {
        #expect(SMTPRelay(url: "smtp://mail.school.example")?.security == .startTLS)
        #expect(
            SMTPRelay(url: "smtps://mail.school.example")
                == SMTPRelay(host: "mail.school.example", port: 465, security: .implicitTLS))
        #expect(SMTPRelay(url: "smtps://mail.school.example:2465")?.port == 2465)
        #expect(SMTPRelay(url: "smtp://localhost?tls=off")?.security == SMTPRelay.Security.none)
        #expect(SMTPRelay(url: "smtps://localhost?tls=off") == nil)
    }

    /// A relay that takes no mail before STARTTLS (as Microsoft 365's on port 587): the message
    /// goes inside TLS, to a certificate signed by the school's own CA given to the client.
    @Test func aRelayOfferingSTARTTLSGetsTheMessageInsideTLS() async throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        let leaf = try certificates.leaf("relay", serial: 2)
        let sink = try await SMTPSink(tls: .startTLS(certificate: leaf.certificate, key: leaf.key))
        defer { sink.stop() }
        var relay = sink.relay
        relay.trustedCAFile = certificates.caFile.path
        try await SMTPClient(relay: relay, from: "podium@school.test").send(
            MailMessage(to: "ada@school.test", subject: "Inside TLS", text: "Hello"))
        let message = try await sink.waitForMessage(to: "ada@school.test")
        #expect(message.contains("Subject: Inside TLS"))

        // The same relay, its CA not trusted: refused at the handshake, nothing sent.
        await #expect(throws: (any Error).self) {
            try await SMTPClient(relay: sink.relay, from: "podium@school.test", timeout: .seconds(10)).send(
                MailMessage(to: "bob@school.test", subject: "x", text: "x"))
        }
        #expect(sink.messages(to: "bob@school.test").isEmpty)
        // Nor with TLS turned off: this relay takes no mail in the clear (530), so none went.
        var plain = sink.relay
        plain.security = .none
        await #expect(throws: SMTPError.self) {
            try await SMTPClient(relay: plain, from: "podium@school.test", timeout: .seconds(10)).send(
                MailMessage(to: "bob@school.test", subject: "x", text: "x"))
        }
        #expect(sink.messages(to: "bob@school.test").isEmpty)
    }

    @Test func smtpsSpeaksTLSFromTheFirstByte() async throws {
        let certificates = try TLSTestCertificates()
        defer { certificates.remove() }
        let leaf = try certificates.leaf("relay", serial: 3)
        let sink = try await SMTPSink(tls: .implicit(certificate: leaf.certificate, key: leaf.key))
        defer { sink.stop() }
        let relay = SMTPRelay(
            host: "127.0.0.1", port: sink.port, security: .implicitTLS, trustedCAFile: certificates.caFile.path)
        try await SMTPClient(relay: relay, from: "podium@school.test").send(
            MailMessage(to: "ada@school.test", subject: "smtps", text: "Hello"))
        #expect(try await sink.waitForMessage(to: "ada@school.test").contains("Subject: smtps"))
    }

    /// A relay offering no STARTTLS is not given the password in the clear.
    @Test func aPasswordIsNeverSentWithoutTLS() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        var relay = sink.relay
        relay.username = "podium"
        relay.password = "secret"
        await #expect(throws: SMTPError.self) {
            try await SMTPClient(relay: relay, from: "podium@school.test", timeout: .seconds(10)).send(
                MailMessage(to: "ada@school.test", subject: "x", text: "x"))
        }
        #expect(sink.messages(to: "ada@school.test").isEmpty)
    }

    @Test func aRelayThatCannotBeReachedFailsWithAReason() async throws {
        // Port 9 (discard): nothing listens on it on a test machine.
        let client = SMTPClient(relay: SMTPRelay(host: "127.0.0.1", port: 9), from: "podium@school.test", timeout: .seconds(10))
        await #expect(throws: SMTPError.self) {
            try await client.send(MailMessage(to: "ada@school.test", subject: "x", text: "x"))
        }
    }
}
