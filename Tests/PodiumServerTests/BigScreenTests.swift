import Foundation
import HTTPTypes
import PodiumCore
import Testing

@testable import PodiumServer

/// The big screen of a session (`/s/{code}/screen`, a viewer socket with `projector: true`): it
/// sees what viewers see, but is nobody in the audience, and shows how to join when asked.
@Suite("Big screen", .timeLimit(.minutes(2)))
struct BigScreenTests {
    /// A big screen's socket, opened from the browser with this viewer identity.
    func openScreen(_ client: Client, code: String, identity: String) async throws -> (TestSocket, [String: Any]) {
        let socket = try await client.socket(code: code, headers: [.cookie: "podium_viewer=\(identity)"])
        let welcome = try await socket.hello(["role": "viewer", "projector": true])
        #expect(welcome["type"] as? String == "welcome")
        return (socket, welcome)
    }

    @Test func aScreenIsNotCountedListedOrInTheReport() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let (screen, welcome) = try await openScreen(client, code: code, identity: InteractionTests.identity(9))
            #expect(welcome["viewers"] as? Int == 0)
            #expect(welcome["viewerId"] == nil)  // nobody: no identity of its own
            // It answers nothing: a screen is no one in the audience.
            try await presenter.send(#"{"type":"openPoll","id":"p","poll":{"kind":"choice","question":"Q","choices":["A","B"]}}"#)
            #expect(try await presenter.next(ofType: "ack")?["id"] as? String == "p")
            try await screen.send(#"{"type":"answer","id":"a","pollId":1,"choices":[0]}"#)
            var answered: [String: Any]?
            while let message = try await screen.next() {
                if message["id"] as? String == "a" {
                    answered = message
                    break
                }
            }
            #expect(answered?["type"] as? String == "error")
            #expect(answered?["code"] as? String == "forbidden")

            // One real viewer: the count, the list and the report say one.
            let ada = try await InteractionTests().viewer(client, code: code, identity: InteractionTests.identity(1), name: "Ada")
            #expect(try await presenter.next(ofType: "presence")?["viewers"] as? Int == 1)
            let list = try await ViewerListTests.latestList(presenter) { !$0.isEmpty }
            #expect(list.count == 1)
            #expect(list.first?["name"] as? String == "Ada")
            // The screen leaves: the count does not move (the next presence is Ada's leaving).
            await screen.close()
            await ada.close()
            #expect(try await presenter.next(ofType: "presence")?["viewers"] as? Int == 0)
            try await presenter.send(#"{"type":"end","id":"e"}"#)
            #expect(try await presenter.next(ofType: "ack")?["id"] as? String == "e")
            let report = try await client.request(.get, "/api/v1/sessions/\(code)/report", token: token).object()
            #expect(report["uniqueViewers"] as? Int == 1)
            #expect(report["peakViewers"] as? Int == 1)
        }
    }

    @Test func theHostShowsJoinInfoOnTheScreensAndItIsInTheSnapshot() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let (screen, welcome) = try await openScreen(client, code: code, identity: InteractionTests.identity(9))
            #expect((welcome["snapshot"] as? [String: Any])?["joinInfo"] == nil)
            // Viewers (and screens) may not.
            try await screen.send(#"{"type":"showJoinInfo","id":"s","on":true}"#)
            #expect(try await screen.next(ofType: "error")?["code"] as? String == "forbidden")

            try await presenter.send(#"{"type":"showJoinInfo","id":"j1","on":true}"#)
            #expect(try await presenter.next(ofType: "ack")?["id"] as? String == "j1")
            let event = try #require(try await screen.nextDurable())
            #expect(event["type"] as? String == "joinInfo")
            #expect(event["on"] as? Bool == true)
            // A screen opened now learns it from its snapshot.
            let (later, laterWelcome) = try await openScreen(client, code: code, identity: InteractionTests.identity(8))
            #expect((laterWelcome["snapshot"] as? [String: Any])?["joinInfo"] as? Bool == true)
            // Asking again changes nothing; taking it off does.
            try await presenter.send(#"{"type":"showJoinInfo","id":"j2","on":true}"#)
            #expect(try await presenter.next(ofType: "ack")?["seq"] as? Int == event["seq"] as? Int)
            try await presenter.send(#"{"type":"showJoinInfo","id":"j3","on":false}"#)
            let off = try #require(try await later.nextDurable())
            #expect(off["type"] as? String == "joinInfo")
            #expect(off["on"] as? Bool == false)
            await screen.close()
            await later.close()
        }
    }

    /// The presenter's own big screen is the screen a video waits for, as a room's projector is:
    /// while it buffers a playing clip, the clip pauses for everyone and plays on when it can. A
    /// screen of someone else's browser may not say so.
    @Test func everyoneWaitsForThePresentersScreenWhileItBuffers() async throws {
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: scratch)
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let videoId = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
            try #require(try await client.waitForVideo(videoId, token: token)["status"] as? String == "ready")
            let deckId = try await client.readyDeck(token: token)
            let code = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let screen = try await client.socket(code: code)
            _ = try await screen.hello(["role": "viewer", "token": token, "projector": true])
            let (stranger, _) = try await openScreen(client, code: code, identity: InteractionTests.identity(7))

            try await presenter.send(#"{"type":"showVideo","id":"s1","videoId":"\#(videoId)"}"#)
            try await presenter.send(#"{"type":"playback","id":"p1","action":"play"}"#)
            #expect(
                VideoPlaybackServerTests.playback(try await screen.next(ofType: "playback"))?["state"] as? String == "stopped")
            #expect(
                VideoPlaybackServerTests.playback(try await screen.next(ofType: "playback"))?["state"] as? String == "playing")

            // The presenter's own copies of those two.
            for _ in 0..<2 { _ = try await presenter.next(ofType: "playback") }

            try await stranger.send(#"{"type":"buffering","buffering":true}"#)
            #expect(try await stranger.next(ofType: "error")?["code"] as? String == "forbidden")

            try await screen.send(#"{"type":"buffering","buffering":true}"#)
            let paused = try #require(VideoPlaybackServerTests.playback(try await presenter.next(ofType: "playback")))
            #expect(paused["state"] as? String == "paused")
            try await screen.send(#"{"type":"buffering","buffering":false}"#)
            let resumed = try #require(VideoPlaybackServerTests.playback(try await presenter.next(ofType: "playback")))
            #expect(resumed["state"] as? String == "playing")
            #expect(resumed["position"] as? Double == paused["position"] as? Double)
        }
    }

    @Test func theEndTakesJoinInfoOff() throws {
        var state = SessionState(pageCount: 3)
        _ = try state.handle(.showJoinInfo(true), id: "j", by: .presenter)
        #expect(state.snapshot.joinInfo == true)
        #expect(throws: SessionError.forbidden) { try state.handle(.showJoinInfo(false), id: "v", by: .viewer, viewerId: "v1") }
        _ = try state.handle(.end, id: "e", by: .presenter)
        #expect(state.snapshot.joinInfo == nil)
    }

    @Test func aSessionsScreenHasItsPageAndLink() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let info = try await client.request(.get, "/api/v1/sessions/\(code)", token: token).object()
            let screenUrl = try #require(info["screenUrl"] as? String)
            #expect(screenUrl.hasSuffix("/s/\(code)/screen"))
            let page = try await client.request(.get, "/s/\(code)/screen")
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("screen.js"))
            #expect(try await client.request(.get, "/s/ZZZZZZ/screen").status == .notFound)
        }
    }
}
