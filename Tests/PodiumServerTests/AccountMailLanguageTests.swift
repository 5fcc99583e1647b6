import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer

/// The accounts' messages in their reader's language, through a real SMTP server (aiosmtpd): an
/// invitation in the language the admin chose (and sent again in it), a password reset in the
/// page's, a sign-up's messages in the page's and the admins' notice in each admin's; a subject
/// that is not ASCII decoded back whole.
@Suite("Account mail in the reader's language", .timeLimit(.minutes(3)))
struct AccountMailLanguageTests {
    /// The header `name` of a raw message, its folded lines joined and its encoded words
    /// (RFC 2047, UTF-8 base64) decoded, as a mail reader shows it.
    static func header(_ name: String, in message: String) -> String? {
        let head = message.components(separatedBy: "\r\n\r\n").first ?? message
        // Unfold: a line that starts with white space goes on the one before.
        let unfolded = head.replacingOccurrences(of: "\r\n ", with: " ").replacingOccurrences(of: "\r\n\t", with: " ")
        guard let line = unfolded.components(separatedBy: "\r\n").first(where: { $0.hasPrefix(name + ": ") }) else {
            return nil
        }
        let value = String(line.dropFirst(name.count + 2))
        // White space between two encoded words is not part of the text (RFC 2047, 6.2).
        let words = value.components(separatedBy: " ")
        guard words.allSatisfy({ $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") }) else { return value }
        let bytes = words.flatMap { word -> [UInt8] in
            [UInt8](Data(base64Encoded: String(word.dropFirst(10).dropLast(2))) ?? Data())
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The message's text (after the headers), its CRLF line ends as LF.
    static func body(_ message: String) -> String {
        let parts = message.components(separatedBy: "\r\n\r\n")
        return parts.dropFirst().joined(separator: "\n\n").replacingOccurrences(of: "\r\n", with: "\n")
    }

    @Test(arguments: TestStores.kinds) func anInvitationIsInTheLanguageTheAdminChoseAndSentAgainInIt(_ kind: StoreKind)
        async throws
    {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let server = TestServer(store: kind) {
            $0.smtpRelay = sink.relay
            $0.publicURL = AccountMailTests.publicURL
        }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            let created = try await client.request(
                .post, "/api/v1/invitations", token: admin,
                json: #"{"email":"lehrerin@schule.test","role":"presenter","language":"de"}"#)
            #expect(created.status == .created)
            let message = try await sink.waitForMessage(to: "lehrerin@schule.test")
            #expect(Self.header("Subject", in: message) == "Ihre Einladung zu Podium")
            #expect(Self.header("Content-Language", in: message) == "de")
            let text = Self.body(message)
            #expect(text.hasPrefix("Hallo,\n\nAdmin lädt Sie ein, mit Podium zu präsentieren."), "\(text)")
            #expect(text.contains("Der Link funktioniert einmal, 7 Tage lang."), "\(text)")
            #expect(!text.contains("invites you"))
            let (_, token) = try #require(SMTPSink.link(in: message))

            // Sent again: a new link, the same language.
            let id = try #require(try created.object()["id"] as? String)
            #expect(try await client.request(.post, "/api/v1/invitations/\(id)/resend", token: admin).status == .ok)
            let again = try await sink.waitForMessage(to: "lehrerin@schule.test", count: 2)
            #expect(Self.header("Subject", in: again) == "Ihre Einladung zu Podium")
            let (_, newToken) = try #require(SMTPSink.link(in: again))
            #expect(newToken != token)

            // An admin's invitation says so; a language the server has no catalogue for is the
            // server's default (English here), a regional tag its language's.
            _ = try await client.request(
                .post, "/api/v1/invitations", token: admin,
                json: #"{"email":"chef@schule.test","role":"admin","language":"de-AT"}"#)
            #expect(Self.body(try await sink.waitForMessage(to: "chef@schule.test")).contains("als Administrator"))
            _ = try await client.request(
                .post, "/api/v1/invitations", token: admin, json: #"{"email":"kim@schule.test","language":"ko"}"#)
            #expect(
                Self.header("Subject", in: try await sink.waitForMessage(to: "kim@schule.test")) == "You are invited to Podium")
            // The pending invitations say which language each message is in: the catalogue's.
            let pending = try await client.request(.get, "/api/v1/invitations", token: admin).array()
            let languages = Dictionary(
                uniqueKeysWithValues: pending.compactMap { item in
                    (item["email"] as? String).map { ($0, item["language"] as? String) }
                })
            #expect(
                languages == ["lehrerin@schule.test": "de", "chef@schule.test": "de", "kim@schule.test": "en"], "\(languages)")

            // The account made from it keeps the language (its later messages are German).
            let accepted = try await client.request(
                .post, "/api/v1/auth/invitation",
                json: AccountMailTests.json(["token": newToken, "name": "Frau Weber", "password": "ein langes Geheimnis"]))
            #expect(accepted.status == .ok)
            _ = try await client.request(
                .post, "/api/v1/auth/password-reset", json: #"{"email":"lehrerin@schule.test"}"#)
            let reset = try await sink.waitForMessage(to: "lehrerin@schule.test", count: 3)
            // No page language sent (a script's request): the account's.
            #expect(Self.header("Subject", in: reset) == "Ihr Podium-Passwort zurücksetzen")
        }
    }

    @Test(arguments: TestStores.kinds) func aPasswordResetIsInThePagesLanguage(_ kind: StoreKind) async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let server = TestServer(store: kind) {
            $0.smtpRelay = sink.relay
            $0.publicURL = AccountMailTests.publicURL
        }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            _ = try await client.request(
                .post, "/api/v1/users", token: admin, json: #"{"email":"ucitel@skola.test","password":"staré heslo 1"}"#)
            let asked = try await client.request(
                .post, "/api/v1/auth/password-reset", json: #"{"email":"ucitel@skola.test","language":"cs"}"#)
            #expect(asked.status == .accepted)
            let message = try await sink.waitForMessage(to: "ucitel@skola.test")
            #expect(message.contains("Subject: =?UTF-8?B?"), "a Czech subject is an encoded word")
            #expect(Self.header("Subject", in: message) == "Obnovení hesla k Podiu")
            #expect(Self.header("Content-Language", in: message) == "cs")
            let text = Self.body(message)
            #expect(text.hasPrefix("Dobrý den,\n\nNěkdo (doufáme, že vy) požádal o obnovení hesla"), "\(text)")
            #expect(text.contains("Odkaz platí 1 hodinu a funguje jen jednou."), "\(text)")
            let (url, token) = try #require(SMTPSink.link(in: message))
            #expect(url.hasPrefix("http://podium.test/reset-password#token="))
            let reset = try await client.request(
                .post, "/api/v1/auth/password-reset/complete",
                json: AccountMailTests.json(["token": token, "password": "nové heslo 22"]))
            #expect(reset.status == .noContent)
            _ = try await client.login(email: "ucitel@skola.test", password: "nové heslo 22")
        }
    }

    @Test(arguments: TestStores.kinds) func aSignUpIsInThePagesLanguageAndTheAdminsNoticeInTheAdmins(_ kind: StoreKind)
        async throws
    {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let server = TestServer(store: kind) {
            $0.smtpRelay = sink.relay
            $0.allowSignUp = true
            $0.publicURL = AccountMailTests.publicURL
            // For an admin whose language is not known.
            $0.mailLanguage = "ar"
        }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            for email in ["director@school.test", "rectora@school.test"] {
                _ = try await client.request(
                    .post, "/api/v1/users", token: admin,
                    json: AccountMailTests.json(["email": email, "password": "an admin secret", "role": "admin"]))
            }
            // One admin signs in from a Chinese page; the other never signed in.
            let signIn = try await client.request(
                .post, "/api/v1/auth/login",
                json: #"{"email":"director@school.test","password":"an admin secret","language":"zh-Hans"}"#)
            #expect(signIn.status == .ok)

            let asked = try await client.request(
                .post, "/api/v1/auth/sign-up",
                json: #"{"email":"profe@school.test","name":"Profe Ruiz","password":"una clave larga","language":"es"}"#)
            #expect(asked.status == .accepted)
            let confirm = try await sink.waitForMessage(to: "profe@school.test")
            #expect(Self.header("Subject", in: confirm) == "Confirme su dirección para Podium")
            #expect(Self.body(confirm).contains("El enlace funciona una sola vez, durante 1 día."), "\(Self.body(confirm))")
            let (_, token) = try #require(SMTPSink.link(in: confirm))
            #expect(
                try await client.request(.post, "/api/v1/auth/sign-up/verify", json: AccountMailTests.json(["token": token]))
                    .status == .ok)

            // Chinese for the admin who signed in from a Chinese page, decoded back whole.
            let chinese = try await sink.waitForMessage(to: "director@school.test")
            #expect(Self.header("Subject", in: chinese) == "有 Podium 账户等待您的批准")
            #expect(Self.body(chinese).contains("Profe Ruiz（profe@school.test）申请了演示者账户"))
            // The server's default (Arabic here) for the other, its subject decoded back whole.
            let arabic = try await sink.waitForMessage(to: "rectora@school.test")
            #expect(Self.header("Subject", in: arabic) == "حساب في Podium ينتظر موافقتك")
            #expect(Self.header("Content-Language", in: arabic) == "ar")

            // Approved: told in Spanish, the language of the page they asked from.
            let waiting = try await client.request(.get, "/api/v1/sign-ups", token: admin).array()
            let id = try #require(waiting.first?["id"] as? String)
            #expect(try await client.request(.post, "/api/v1/sign-ups/\(id)/approve", token: admin).status == .created)
            let approved = try await sink.waitForMessage(to: "profe@school.test", count: 2)
            #expect(Self.header("Subject", in: approved) == "Su cuenta de Podium está lista")
        }
    }

    /// Subjects in Chinese, Czech and Arabic, long ones too: encoded words of at most 75
    /// characters, on lines of at most 76 (RFC 2047), never a character cut in two, decoded back whole.
    @Test func nonASCIISubjectsAreEncodedWordsThatDecodeBackWhole() {
        let subjects = [
            "有 Podium 账户等待您的批准", "Obnovení hesla k Podiu", "حساب في Podium ينتظر موافقتك",
            String(repeating: "重置您的 Podium 密码，", count: 6), String(repeating: "Žluťoučký kůň úpěl ďábelské ódy. ", count: 4),
            String(repeating: "إعادة تعيين كلمة مرور Podium ", count: 5),
        ]
        for subject in subjects {
            let formatted = SMTPClient.format(
                MailMessage(to: "a@school.test", subject: subject, text: "x"), from: "p@school.test", date: Date(),
                messageID: "m@school.test")
            let head = formatted.components(separatedBy: "\r\n\r\n")[0]
            let lines = head.components(separatedBy: "\r\n")
            #expect(lines.allSatisfy { $0.utf8.count <= 76 }, "\(lines)")
            let words = head.components(separatedBy: CharacterSet(charactersIn: " \r\n")).filter { $0.hasPrefix("=?") }
            #expect(words.allSatisfy { $0.count <= 75 })
            for word in words {
                let bytes = Data(base64Encoded: String(word.dropFirst(10).dropLast(2))) ?? Data()
                #expect(String(data: bytes, encoding: .utf8) != nil, "each word is whole UTF-8")
            }
            #expect(Self.header("Subject", in: formatted) == subject)
        }
    }

    /// A sender's name that is not ASCII (`--mail-from "Podium – Gymnázium Brno <…>"`) is sent as
    /// encoded words before the address as it is, not as raw 8-bit header text.
    @Test func aSendersNameThatIsNotASCIIIsEncoded() {
        let formatted = SMTPClient.format(
            MailMessage(to: "a@school.test", subject: "x", text: "x"), from: "Podium – Gymnázium Brno <podium@gym.test>",
            date: Date(), messageID: "m@gym.test")
        let head = formatted.components(separatedBy: "\r\n\r\n")[0]
        #expect(head.allSatisfy { $0.isASCII })
        let from = Self.header("From", in: formatted) ?? ""
        #expect(from.hasSuffix(" <podium@gym.test>"), "\(from)")
        let name = String(from.dropLast(" <podium@gym.test>".count))
        #expect(Self.header("X", in: "X: \(name)\r\n\r\n") == "Podium – Gymnázium Brno")
        #expect(SMTPClient.mailbox("Podium <podium@school.test>") == "Podium <podium@school.test>")
    }

    /// The plural forms the messages choose are those the pages' Intl.PluralRules choose.
    @Test func lifetimesTakeTheLanguagesPluralForms() {
        let mail = AccountMail(
            catalog: MailCatalog(webRoot: TestServer.repositoryRoot.appendingPathComponent("Public"), defaultLanguage: "en"))
        #expect(mail.lifetime(7 * 86400, "cs") == "7 dní")
        #expect(mail.lifetime(2 * 86400, "cs") == "2 dny")
        #expect(mail.lifetime(86400, "cs") == "1 den")
        #expect(mail.lifetime(3600, "cs") == "1 hodinu")
        #expect(mail.lifetime(2 * 86400, "ar") == "يومين")
        #expect(mail.lifetime(7 * 86400, "ar") == "7 أيام")
        #expect(mail.lifetime(7 * 86400, "zh-Hans") == "7 天")
        #expect(mail.lifetime(3600, "fr") == "1 heure")
        #expect(mail.lifetime(7 * 86400, "en") == "7 days")
        #expect(mail.catalog.language("zh-CN") == "zh-Hans")
        #expect(mail.catalog.language("DE") == "de")
        #expect(mail.catalog.language(nil) == "en")
        #expect(mail.catalog.languages.sorted() == ["ar", "cs", "de", "en", "es", "fr", "zh-Hans"])
    }
}
