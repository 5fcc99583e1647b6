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

    @Test func aRelayThatCannotBeReachedFailsWithAReason() async throws {
        // Port 9 (discard): nothing listens on it on a test machine.
        let client = SMTPClient(relay: SMTPRelay(host: "127.0.0.1", port: 9), from: "podium@school.test", timeout: .seconds(10))
        await #expect(throws: SMTPError.self) {
            try await client.send(MailMessage(to: "ada@school.test", subject: "x", text: "x"))
        }
    }
}
