import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer

/// Invitations, self sign-up and password resets against a real SMTP server (aiosmtpd): the
/// messages arrive, their links are followed, and what they promise holds (once, until expiry).
@Suite("Accounts by email", .timeLimit(.minutes(3)))
struct AccountMailTests {
    static let publicURL = "http://podium.test"

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Polls the admin's invitation list until `email`'s delivery is `state`.
    static func waitForDelivery(_ client: Client, token: String, email: String, _ state: String) async throws -> [String: Any] {
        var found: [String: Any] = [:]
        try await waitUntil("the invitation to \(email) became \(state)") {
            let list = try await client.request(.get, "/api/v1/invitations", token: token).array()
            guard let entry = list.first(where: { $0["email"] as? String == email }), entry["delivery"] as? String == state
            else { return false }
            found = entry
            return true
        }
        return found
    }

    @Test func anInvitationArrivesAndItsLinkMakesTheAccountOnce() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let server = TestServer {
            $0.smtpRelay = sink.relay
            $0.mailFrom = "Podium <podium@school.test>"
            $0.publicURL = Self.publicURL
        }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            let created = try await client.request(
                .post, "/api/v1/invitations", token: admin, json: #"{"email":" Teacher@School.test ","role":"presenter"}"#)
            #expect(created.status == .created)
            let invitation = try created.object()
            #expect(invitation["email"] as? String == "teacher@school.test")
            #expect(invitation["link"] == nil, "with a relay, the link goes by mail only")

            let message = try await sink.waitForMessage(to: "teacher@school.test")
            #expect(message.contains("Subject: You are invited to Podium"))
            #expect(message.contains("From: Podium <podium@school.test>"))
            let (url, token) = try #require(SMTPSink.link(in: message))
            #expect(url.hasPrefix("http://podium.test/invitation#token="))
            _ = try await Self.waitForDelivery(client, token: admin, email: "teacher@school.test", "sent")

            let preview = try await client.request(.get, "/api/v1/auth/invitation?token=\(token)").object()
            #expect(preview["email"] as? String == "teacher@school.test")
            let accepted = try await client.request(
                .post, "/api/v1/auth/invitation",
                json: Self.json(["token": token, "name": "Ada Teacher", "password": "a long secret"]))
            #expect(accepted.status == .ok)
            let signedIn = try accepted.object()
            #expect((signedIn["user"] as? [String: Any])?["name"] as? String == "Ada Teacher")
            #expect(accepted.headers[values: .setCookie].contains { $0.hasPrefix("podium_auth=") })

            // The link worked once.
            let again = try await client.request(
                .post, "/api/v1/auth/invitation", json: Self.json(["token": token, "password": "another secret"]))
            #expect(again.status == .gone)
            #expect(again.errorCode == "link_invalid")
            #expect(try await client.request(.get, "/api/v1/auth/invitation?token=\(token)").status == .gone)

            _ = try await client.login(email: "teacher@school.test", password: "a long secret")
            #expect(try await client.request(.get, "/api/v1/invitations", token: admin).array().isEmpty)
            let actions = try await client.request(.get, "/api/v1/audit", token: admin).object()["entries"] as? [[String: Any]]
            #expect(actions?.compactMap { $0["action"] as? String } == ["invitation.accepted", "user.invited"])
        }
    }

    @Test func withoutARelayTheAdminGetsTheLinkAndCanSendAgainOrRevoke() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            let created = try await client.request(
                .post, "/api/v1/invitations", token: admin, json: #"{"email":"head@school.test","role":"admin"}"#)
            let first = try created.object()
            #expect(first["delivery"] as? String == "manual")
            let firstLink = try #require(first["link"] as? String)
            let firstToken = String(firstLink.suffix(64))
            #expect(firstLink.contains("/invitation#token="))

            let id = try #require(first["id"] as? String)
            let resent = try await client.request(.post, "/api/v1/invitations/\(id)/resend", token: admin).object()
            let secondToken = String(try #require(resent["link"] as? String).suffix(64))
            #expect(secondToken != firstToken)
            // Sending again makes a new link: the old one stops working.
            #expect(try await client.request(.get, "/api/v1/auth/invitation?token=\(firstToken)").status == .gone)
            let preview = try await client.request(.get, "/api/v1/auth/invitation?token=\(secondToken)").object()
            #expect(preview["role"] as? String == "admin")

            #expect(try await client.request(.delete, "/api/v1/invitations/\(id)", token: admin).status == .noContent)
            #expect(try await client.request(.get, "/api/v1/auth/invitation?token=\(secondToken)").status == .gone)
            #expect(try await client.request(.get, "/api/v1/invitations", token: admin).array().isEmpty)

            // An address with an account is not invited; sign-up is closed by default.
            let taken = try await client.request(
                .post, "/api/v1/invitations", token: admin, json: #"{"email":"admin"}"#)
            #expect(taken.status == .badRequest)
            let closed = try await client.request(
                .post, "/api/v1/auth/sign-up", json: #"{"email":"x@school.test","password":"a long secret"}"#)
            #expect(closed.errorCode == "sign_up_closed")
            let options = try await client.request(.get, "/api/v1/auth/options").object()
            #expect(options["signUp"] as? Bool == false)
            #expect(options["passwordReset"] as? Bool == false)

            // Presenters may not invite.
            let presenter = try await client.request(
                .post, "/api/v1/users", token: admin, json: #"{"email":"p@school.test","password":"presenter pass"}"#)
            #expect(presenter.status == .created)
            let presenterToken = try await client.login(email: "p@school.test", password: "presenter pass")
            let refused = try await client.request(
                .post, "/api/v1/invitations", token: presenterToken, json: #"{"email":"z@school.test"}"#)
            #expect(refused.status == .forbidden)
        }
    }

    @Test func anInvitationLinkExpires() async throws {
        let clock = SteppedClock()
        let server = TestServer { $0.invitationLifetime = 3600 }
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let admin = try await client.login()
            let invitation = try await client.request(
                .post, "/api/v1/invitations", token: admin, json: #"{"email":"late@school.test"}"#
            ).object()
            let token = String(try #require(invitation["link"] as? String).suffix(64))
            #expect(try await client.request(.get, "/api/v1/auth/invitation?token=\(token)").status == .ok)
            clock.advance(3601)
            let late = try await client.request(
                .post, "/api/v1/auth/invitation", json: Self.json(["token": token, "password": "a long secret"]))
            #expect(late.errorCode == "link_invalid")
        }
    }

    @Test func aRelayThatRefusesShowsTheInvitationAsNotDelivered() async throws {
        let sink = try await SMTPSink(refuse: true)
        defer { sink.stop() }
        let server = TestServer { $0.smtpRelay = sink.relay }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            _ = try await client.request(.post, "/api/v1/invitations", token: admin, json: #"{"email":"gone@school.test"}"#)
            let failed = try await Self.waitForDelivery(client, token: admin, email: "gone@school.test", "failed")
            #expect((failed["deliveryError"] as? String)?.contains("550") == true)
        }
    }

    @Test func aSignUpIsVerifiedThenApprovedAndThePersonTold() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let server = TestServer {
            $0.smtpRelay = sink.relay
            $0.allowSignUp = true
            $0.publicURL = Self.publicURL
        }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            // An admin with an address is told when a request waits.
            let head = try await client.request(
                .post, "/api/v1/users", token: admin,
                json: #"{"email":"head@school.test","password":"head teacher","role":"admin"}"#)
            #expect(head.status == .created)
            #expect(try await client.request(.get, "/api/v1/auth/options").object()["signUp"] as? Bool == true)
            let asked = try await client.request(
                .post, "/api/v1/auth/sign-up",
                json: Self.json(["email": "new@school.test", "name": "New Teacher", "password": "my own secret"]))
            #expect(asked.status == .accepted)
            let message = try await sink.waitForMessage(to: "new@school.test")
            let (url, token) = try #require(SMTPSink.link(in: message))
            #expect(url.hasPrefix("http://podium.test/sign-up#token="))

            // Not before the address is confirmed.
            #expect(try await client.request(.get, "/api/v1/sign-ups", token: admin).array().isEmpty)
            let verified = try await client.request(.post, "/api/v1/auth/sign-up/verify", json: Self.json(["token": token]))
            #expect(verified.status == .ok)
            #expect(try verified.object()["status"] as? String == "awaiting_approval")
            let waitingNotice = try await sink.waitForMessage(to: "head@school.test")
            #expect(waitingNotice.contains("New Teacher (new@school.test) asked for a presenter account"))
            #expect(waitingNotice.contains("http://podium.test/channel/admin#accounts"))
            #expect(
                try await client.request(.post, "/api/v1/auth/sign-up/verify", json: Self.json(["token": token])).status
                    == .gone)

            // Waiting for an admin: no sign-in yet.
            let early = try await client.request(
                .post, "/api/v1/auth/login", json: #"{"email":"new@school.test","password":"my own secret"}"#)
            #expect(early.status == .unauthorized)
            let waiting = try await client.request(.get, "/api/v1/sign-ups", token: admin).array()
            #expect(waiting.map { $0["name"] as? String } == ["New Teacher"])
            let id = try #require(waiting.first?["id"] as? String)
            let approved = try await client.request(.post, "/api/v1/sign-ups/\(id)/approve", token: admin)
            #expect(approved.status == .created)
            let told = try await sink.waitForMessage(to: "new@school.test", count: 2)
            #expect(told.contains("Subject: Your Podium account is ready"))
            _ = try await client.login(email: "new@school.test", password: "my own secret")

            // Asking with an address that has an account answers the same, and tells its owner.
            let again = try await client.request(
                .post, "/api/v1/auth/sign-up", json: Self.json(["email": "new@school.test", "password": "whatever it is"]))
            #expect(again.status == .accepted)
            #expect(String(buffer: again.body) == String(buffer: asked.body))
            let notice = try await sink.waitForMessage(to: "new@school.test", count: 3)
            #expect(notice.contains("has one already"))

            // A declined request: the person is told, nothing is made.
            _ = try await client.request(
                .post, "/api/v1/auth/sign-up", json: Self.json(["email": "no@school.test", "password": "my own secret"]))
            let declineToken = try #require(SMTPSink.link(in: try await sink.waitForMessage(to: "no@school.test"))?.token)
            _ = try await client.request(.post, "/api/v1/auth/sign-up/verify", json: Self.json(["token": declineToken]))
            let declineId = try #require(
                try await client.request(.get, "/api/v1/sign-ups", token: admin).array().first?["id"] as? String)
            #expect(try await client.request(.post, "/api/v1/sign-ups/\(declineId)/decline", token: admin).status == .noContent)
            #expect(try await sink.waitForMessage(to: "no@school.test", count: 2).contains("declined"))
            let actions = try await client.request(.get, "/api/v1/audit", token: admin).object()["entries"] as? [[String: Any]]
            #expect(actions?.compactMap { $0["action"] as? String } == ["sign_up.declined", "user.approved", "user.created"])
        }
    }

    @Test func aPasswordResetSetsANewPasswordOnceAndSignsOutEverywhere() async throws {
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let server = TestServer {
            $0.smtpRelay = sink.relay
            $0.publicURL = Self.publicURL
        }
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.login()
            _ = try await client.request(
                .post, "/api/v1/users", token: admin, json: #"{"email":"forgot@school.test","password":"the old secret"}"#)
            let oldSession = try await client.login(email: "forgot@school.test", password: "the old secret")

            // The same answer for an address without an account (nothing is sent to it).
            let unknown = try await client.request(.post, "/api/v1/auth/password-reset", json: #"{"email":"nobody@school.test"}"#)
            let known = try await client.request(.post, "/api/v1/auth/password-reset", json: #"{"email":"Forgot@School.test"}"#)
            #expect(unknown.status == .accepted)
            #expect(known.status == unknown.status)
            #expect(String(buffer: known.body) == String(buffer: unknown.body))
            let message = try await sink.waitForMessage(to: "forgot@school.test")
            #expect(sink.messages(to: "nobody@school.test").isEmpty)
            let (url, token) = try #require(SMTPSink.link(in: message))
            #expect(url.hasPrefix("http://podium.test/reset-password#token="))

            let short = try await client.request(
                .post, "/api/v1/auth/password-reset/complete", json: Self.json(["token": token, "password": "short"]))
            #expect(short.errorCode == "weak_password")
            let reset = try await client.request(
                .post, "/api/v1/auth/password-reset/complete", json: Self.json(["token": token, "password": "the new secret"]))
            #expect(reset.status == .noContent)
            // Every earlier sign-in ended; the old password is gone; the link worked once.
            #expect(try await client.request(.get, "/api/v1/me", token: oldSession).status == .unauthorized)
            let old = try await client.request(
                .post, "/api/v1/auth/login", json: #"{"email":"forgot@school.test","password":"the old secret"}"#)
            #expect(old.status == .unauthorized)
            _ = try await client.login(email: "forgot@school.test", password: "the new secret")
            let twice = try await client.request(
                .post, "/api/v1/auth/password-reset/complete", json: Self.json(["token": token, "password": "a third secret"]))
            #expect(twice.errorCode == "link_invalid")
        }
    }
}
