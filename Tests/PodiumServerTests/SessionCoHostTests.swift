import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer
@testable import PodiumStore

/// A session's presenter adds co-hosts by email, sees them listed and removes them; a co-host runs
/// the session but adds no one, and may leave; a course teacher's grant stays the course's; every
/// change is in the audit log, and refusals say why.
@Suite("Session co-hosts", .timeLimit(.minutes(3)))
struct SessionCoHostTests {
    typealias Tokens = AuthorizationMatrixTests.Tokens

    /// What `token`'s presenter hello on `code` is answered with: `welcome` or the refusal's code.
    static func presenterHello(_ client: Client, code: String, token: String) async throws -> String? {
        let socket = try await client.socket(code: code)
        let reply = try await socket.hello(["role": "presenter", "token": token])
        return reply["code"] as? String ?? reply["type"] as? String
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        (try response.object()["error"] as? [String: Any])?["code"] as? String
    }

    static func liveSession(_ client: Client, token: String) async throws -> String {
        let uploaded = try await client.upload(TestServer.demoDeck, token: token).object()
        let deckId = try #require(uploaded["id"] as? String)
        #expect(try await client.waitForDeck(deckId, token: token)["status"] as? String == "ready")
        return try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
    }

    @Test func thePresenterAddsListsAndRemovesACoHostWhoThenLosesTheConsole() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, store, tokens in
            let code = try await Self.liveSession(client, token: tokens.owner)
            let hosts = "/api/v1/sessions/\(code)/hosts"

            // At first the presenter alone; someone who does not host it reads nothing.
            let first = try await client.request(.get, hosts, token: tokens.owner)
            #expect(first.status == .ok)
            let presenter = try #require(try first.object()["presenter"] as? [String: Any])
            #expect(presenter["id"] as? String == "u_owner")
            #expect(presenter["email"] as? String == "owner@example.org")
            #expect((try first.object()["coHosts"] as? [Any])?.isEmpty == true)
            #expect(try first.object()["canManage"] as? Bool == true)
            #expect(try await client.request(.get, hosts).status == .unauthorized)
            let stranger = try await client.request(.get, hosts, token: tokens.other)
            #expect(stranger.status == .forbidden)
            #expect(try Self.errorCode(stranger) == "forbidden")
            #expect(try await Self.presenterHello(client, code: code, token: tokens.other) == "forbidden")

            // Added by the address of their account, however it is typed.
            let added = try await client.request(.post, hosts, token: tokens.owner, json: #"{"email":"  Other@Example.org "}"#)
            #expect(added.status == .created)
            #expect(try added.object()["id"] as? String == "u_other")
            #expect(try added.object()["reason"] as? String == "invited")
            #expect(try added.object()["since"] is String)

            // Refusals, each saying why.
            let again = try await client.request(.post, hosts, token: tokens.owner, json: #"{"email":"other@example.org"}"#)
            #expect(again.status == .conflict)
            #expect(try Self.errorCode(again) == "already_host")
            let themself = try await client.request(.post, hosts, token: tokens.owner, json: #"{"email":"owner@example.org"}"#)
            #expect(try Self.errorCode(themself) == "already_host")
            let nobody = try await client.request(.post, hosts, token: tokens.owner, json: #"{"email":"nobody@example.org"}"#)
            #expect(nobody.status == .notFound)
            #expect(try Self.errorCode(nobody) == "not_found")
            #expect(try await client.request(.post, hosts, token: tokens.owner, json: #"{"email":" "}"#).status == .badRequest)
            #expect(try await client.request(.post, hosts, token: tokens.owner, json: #"{"mail":"x"}"#).status == .badRequest)

            // The co-host sees the list, runs the session (its console, its passcode), adds no one.
            let seen = try await client.request(.get, hosts, token: tokens.other).object()
            #expect(seen["canManage"] as? Bool == false)
            #expect((seen["coHosts"] as? [[String: Any]])?.map { $0["email"] as? String } == ["other@example.org"])
            #expect(try await Self.presenterHello(client, code: code, token: tokens.other) == "welcome")
            let passcode = try await client.request(
                .patch, "/api/v1/sessions/\(code)", token: tokens.other, json: #"{"passcode":"4711"}"#)
            #expect(passcode.status == .ok)
            let coHostAdds = try await client.request(.post, hosts, token: tokens.other, json: #"{"email":"owner@example.org"}"#)
            #expect(coHostAdds.status == .forbidden)
            #expect(try await client.request(.delete, "\(hosts)/u_owner", token: tokens.other).status == .forbidden)

            // Removed: every door after it is shut.
            #expect(try await client.request(.delete, "\(hosts)/u_other", token: tokens.owner).status == .noContent)
            #expect(try await client.request(.get, hosts, token: tokens.other).status == .forbidden)
            #expect(try await Self.presenterHello(client, code: code, token: tokens.other) == "forbidden")
            let patched = try await client.request(
                .patch, "/api/v1/sessions/\(code)", token: tokens.other, json: #"{"passcode":"1"}"#)
            #expect(patched.status == .forbidden)
            let gone = try await client.request(.delete, "\(hosts)/u_other", token: tokens.owner)
            #expect(gone.status == .notFound)

            // An admin manages another's session; a co-host may leave it.
            let byAdmin = try await client.request(.post, hosts, token: tokens.admin, json: #"{"email":"other@example.org"}"#)
            #expect(byAdmin.status == .created)
            #expect(try await client.request(.get, hosts, token: tokens.admin).object()["canManage"] as? Bool == true)
            #expect(try await client.request(.delete, "\(hosts)/u_other", token: tokens.other).status == .noContent)
            #expect(try await store.sessionHosts(sessionId: try #require(await store.session(code: code)?.id)).isEmpty)

            // Written in the audit log, with who did it and the session.
            let audit = try await store.auditEntries(before: nil, limit: 20).filter { $0.action.hasPrefix("session.cohost") }
            #expect(
                audit.map(\.action).sorted() == [
                    "session.cohost_added", "session.cohost_added", "session.cohost_removed", "session.cohost_removed",
                ])
            #expect(audit.allSatisfy { $0.target == "other@example.org" && $0.detail == "session \(code)" })
            let actors = Set(audit.compactMap(\.actorId))
            #expect(actors.count == 3 && actors.isSuperset(of: ["u_owner", "u_other"]), "the owner, the admin, the leaver")
        }
    }

    @Test func aRemovedCoHostsOpenConsoleClosesAtOnceAndTheOthersStay() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, _, tokens in
            let code = try await Self.liveSession(client, token: tokens.owner)
            let hosts = "/api/v1/sessions/\(code)/hosts"
            #expect(
                try await client.request(.post, hosts, token: tokens.owner, json: #"{"email":"other@example.org"}"#).status
                    == .created)
            let coHost = try await client.socket(code: code)
            #expect(try await coHost.hello(["role": "presenter", "token": tokens.other])["type"] as? String == "welcome")
            let presenter = try await client.socket(code: code)
            #expect(try await presenter.hello(["role": "presenter", "token": tokens.owner])["type"] as? String == "welcome")
            let viewer = try await client.socket(code: code)
            #expect(try await viewer.hello(["role": "viewer"])["type"] as? String == "welcome")

            // Taken off the session: the co-host's console is closed by the server (its next
            // hello is refused); the presenter's and the viewer's sockets stay and still answer.
            #expect(try await client.request(.delete, "\(hosts)/u_other", token: tokens.owner).status == .noContent)
            try await coHost.waitForClose()
            #expect(try await Self.presenterHello(client, code: code, token: tokens.other) == "forbidden")
            try await presenter.barrier()
            try await viewer.barrier()
            #expect(!presenter.closed && !viewer.closed)
            await presenter.close()
            await viewer.close()
        }
    }

    @Test func aCourseTeachersGrantStaysTheCoursesAndAnEndedSessionTakesNoOne() async throws {
        try await AuthorizationMatrixTests.withAccounts { client, store, tokens in
            let code = try await Self.liveSession(client, token: tokens.owner)
            let hosts = "/api/v1/sessions/\(code)/hosts"
            let session = try #require(try await store.session(code: code))
            _ = try await store.addSessionHost(
                SessionHostRecord(
                    sessionId: session.id, userId: "u_other", grantedBy: nil, reason: "lti-course", createdAt: Date()))

            let listed = try await client.request(.get, hosts, token: tokens.owner).object()
            #expect((listed["coHosts"] as? [[String: Any]])?.first?["reason"] as? String == "lti-course")
            let refused = try await client.request(.delete, "\(hosts)/u_other", token: tokens.owner)
            #expect(refused.status == .conflict)
            #expect(try Self.errorCode(refused) == "course_teacher")
            #expect(try await store.isSessionHost(sessionId: session.id, userId: "u_other"))
            // The teacher may still leave.
            #expect(try await client.request(.delete, "\(hosts)/u_other", token: tokens.other).status == .noContent)

            // Over: nobody is added any more; the list stays readable for the report's hosts.
            #expect(try await client.request(.post, "/api/v1/sessions/\(code)/end", token: tokens.owner).status == .ok)
            let late = try await client.request(.post, hosts, token: tokens.owner, json: #"{"email":"other@example.org"}"#)
            #expect(late.status == .conflict)
            #expect(try Self.errorCode(late) == "ended")
            #expect(try await client.request(.get, hosts, token: tokens.owner).status == .ok)

            // A room has no co-hosts.
            let room = try #require(
                try await client.request(.post, "/api/v1/rooms", token: tokens.owner, json: "{}").object()["code"] as? String)
            #expect(try await client.request(.get, "/api/v1/sessions/\(room)/hosts", token: tokens.owner).status == .notFound)
        }
    }
}
