import Foundation
import HTTPTypes
import NIOCore
import Testing

/// A video on stage through the real server: a clip uploaded and packaged, put on stage, played,
/// paused and sought over the live socket; viewers follow one reference, late joiners and
/// reconnecting viewers find it, and the clock comes with every pong.
@Suite("Video playback on the live socket", .timeLimit(.minutes(3)))
struct VideoPlaybackServerTests {
    static func viewer(_ n: Int) -> HTTPFields { [.cookie: "podium_viewer=\(InteractionTests.identity(n))"] }

    static func playback(_ frame: [String: Any]?) -> [String: Any]? { frame?["playback"] as? [String: Any] }

    @Test func presenterDrivesAClipAndEveryViewerFollowsOneReference() async throws {
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: scratch)
        try await TestServer.withLiveSession { client, token, code in
            let uploaded = try await client.uploadVideo(clip, token: token, title: "Clip")
            let videoId = try #require(try uploaded.object()["id"] as? String)
            let video = try await client.waitForVideo(videoId, token: token)
            try #require(video["status"] as? String == "ready", "\(video)")

            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let ada = try await client.socket(code: code, headers: Self.viewer(1))
            _ = try await ada.hello(["role": "viewer", "name": "Ada"])

            // On stage, stopped at the start, with the clip's length from the library.
            try await presenter.send(#"{"type":"showVideo","id":"v1","videoId":"\#(videoId)"}"#)
            #expect(try await presenter.next(ofType: "ack")?["id"] as? String == "v1")
            let shown = try #require(Self.playback(try await ada.next(ofType: "playback")))
            #expect(shown["video"] as? String == videoId)
            #expect(shown["state"] as? String == "stopped")
            #expect((shown["duration"] as? Double ?? 0) > 1.5)
            // What a screen loads comes with it: viewers cannot read the presenter's library.
            let media = try #require(shown["media"] as? [String: Any])
            // The media by a capability URL made for the session (not the owner's REST one).
            let playlist = try #require(media["playlist"] as? String)
            let ownersURL = try #require(video["masterPlaylistUrl"] as? String)
            #expect(playlist.hasPrefix("/stream/") && playlist != ownersURL)
            #expect(playlist.split(separator: "/").last == ownersURL.split(separator: "/").last)
            #expect(try await client.request(.get, playlist).status == .ok)
            #expect(media["poster"] as? String == video["posterUrl"] as? String)
            let track = try #require(media["thumbnails"] as? String)
            #expect(track.split(separator: "/").last == (video["thumbnailTrackUrl"] as? String)?.split(separator: "/").last)
            #expect(try await client.request(.get, track).status == .ok)
            #expect(media["audioOnly"] as? Bool == false)

            // The clock: the ping's t comes back with the server's time; a play is anchored after
            // the server's time of any earlier pong, so every screen can start together.
            try await presenter.send(#"{"type":"ping","t":5}"#)
            let pong = try #require(try await presenter.next(ofType: "pong"))
            #expect(pong["t"] as? Double == 5)
            let serverTime = try #require(pong["server"] as? Double)
            try await presenter.send(#"{"type":"playback","id":"p1","action":"play"}"#)
            let playing = try #require(Self.playback(try await ada.next(ofType: "playback")))
            #expect(playing["state"] as? String == "playing")
            #expect((playing["anchor"] as? Double ?? 0) > serverTime)

            try await presenter.send(#"{"type":"playback","id":"p2","action":"pause"}"#)
            let paused = try #require(try await ada.next(ofType: "playback"))
            #expect(Self.playback(paused)?["state"] as? String == "paused")
            let seqBeforeSeek = try #require(paused["seq"] as? Int)

            try await presenter.send(#"{"type":"playback","id":"p3","action":"seek","position":1.25}"#)
            let sought = try #require(Self.playback(try await ada.next(ofType: "playback")))
            #expect(sought["position"] as? Double == 1.25)

            // A seek past the clip's end is refused and changes nothing; a viewer may not drive.
            try await presenter.send(#"{"type":"playback","id":"p4","action":"seek","position":99}"#)
            #expect(try await presenter.next(ofType: "error")?["code"] as? String == "invalid_playback")
            try await ada.send(#"{"type":"playback","id":"a1","action":"play"}"#)
            #expect(try await ada.next(ofType: "error")?["code"] as? String == "forbidden")

            // A late joiner finds the reference in the welcome.
            let bob = try await client.socket(code: code, headers: Self.viewer(2))
            let welcome = try await bob.hello(["role": "viewer", "name": "Bob"])
            let snapshot = try #require(welcome["snapshot"] as? [String: Any])
            #expect(Self.playback(snapshot)?["position"] as? Double == 1.25)
            #expect(Self.playback(snapshot)?["state"] as? String == "paused")

            // A viewer back with what it had before the seek gets the seek in its welcome.
            let back = try await client.socket(code: code, headers: Self.viewer(1))
            let again = try await back.hello(["role": "viewer", "name": "Ada", "lastSeq": seqBeforeSeek])
            let missed = try #require(again["events"] as? [[String: Any]])
            #expect(missed.map { $0["type"] as? String } == ["playback"])
            #expect(Self.playback(missed.first)?["position"] as? Double == 1.25)

            // A page takes the video off first: a playback event with null, then the page.
            try await presenter.send(#"{"type":"goto","id":"g1","page":2}"#)
            let off = try #require(try await bob.nextDurable())
            #expect(off["type"] as? String == "playback")
            #expect(off["playback"] is NSNull)
            #expect(try await bob.nextDurable()?["type"] as? String == "page")
        }
    }

    @Test func aVideoThatIsNotInThePresentersLibraryIsNotFound() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            try await presenter.send(#"{"type":"showVideo","id":"v1","videoId":"vid_nobody"}"#)
            let error = try #require(try await presenter.next(ofType: "error"))
            #expect(error["code"] as? String == "video_not_found")
            #expect(error["id"] as? String == "v1")
        }
    }

    /// A presenter uploads a clip into a room from its page: it is the room's alone (in nobody's
    /// library), listed for the room's people with its progress, and shown on that room's stage
    /// by whoever drives it, not on another of the moderator's sessions.
    @Test func aClipUploadedIntoARoomIsTheRoomsAlone() async throws {
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: scratch)
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let ann = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("ann")])
            let joined = try await ann.hello(["role": "presenter", "name": "Ann"])
            let presenterId = try #require(joined["presenterId"] as? String)
            let upload = { (cookie: String) in
                try await client.request(
                    .post, "/api/v1/sessions/\(code)/videos?title=Demo",
                    headers: [.contentType: "video/mp4", .cookie: cookie, HTTPField.Name("X-Podium-Request")!: "1"],
                    body: ByteBuffer(bytes: try Data(contentsOf: clip)))
            }
            // Someone who did not join as a presenter may not bring one.
            #expect(try await upload(RoomTests.identity("eve")).status == .forbidden)
            let uploaded = try await upload(RoomTests.identity("ann"))
            #expect(uploaded.status == .created)
            let videoId = try #require(try uploaded.object()["id"] as? String)
            let listAsAnn = {
                try await client.request(
                    .get, "/api/v1/sessions/\(code)/videos",
                    headers: [.cookie: RoomTests.identity("ann"), HTTPField.Name("X-Podium-Request")!: "1"])
            }
            try await waitUntil("the room's clip packaged", seconds: 90) {
                try await listAsAnn().array().first?["status"] as? String == "ready"
            }
            #expect(try await listAsAnn().array().map { $0["id"] as? String } == [videoId])
            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/videos", token: token).status == .ok)
            // Not in the moderator's library.
            #expect(try await client.request(.get, "/api/v1/videos", token: token).array().isEmpty)

            // Ann drives once granted control, and shows it.
            let moderator = try await client.socket(code: code)
            _ = try await moderator.hello(["role": "moderator", "token": token])
            try await moderator.send(#"{"type":"grant","id":"g1","presenterId":"\#(presenterId)"}"#)
            #expect(try await moderator.next(ofType: "ack")?["id"] as? String == "g1")
            try await ann.send(#"{"type":"showVideo","id":"s1","videoId":"\#(videoId)"}"#)
            #expect(try await ann.next(ofType: "ack")?["id"] as? String == "s1")
            // The moderator trims it meanwhile: the room's stage takes the trim at once, sent as
            // Ann, who drives (a moderator's command would be refused while she has control).
            #expect(
                try await client.request(.put, "/api/v1/videos/\(videoId)/clip", token: token, json: #"{"trimStart":0.5}"#).status
                    == .ok)
            var trimmed: [String: Any]?
            while trimmed == nil, let event = try await ann.next(ofType: "playback") {
                let playback = event["playback"] as? [String: Any]
                if playback?["start"] != nil { trimmed = playback }
            }
            #expect(
                trimmed?["start"] as? Double == 0.5 && trimmed?["position"] as? Double == 0.5, "\(String(describing: trimmed))")

            // The moderator's plain session cannot show the room's clip.
            let deckId = try await client.readyDeck(token: token)
            let otherCode = try #require(try await client.startSession(deckId: deckId, token: token)["code"] as? String)
            let presenter = try await client.socket(code: otherCode)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            try await presenter.send(#"{"type":"showVideo","id":"s2","videoId":"\#(videoId)"}"#)
            #expect(try await presenter.next(ofType: "error")?["code"] as? String == "video_not_found")
        }
    }

    /// A room's projector is the screen everyone waits for: while it buffers a playing clip, the
    /// clip pauses for everyone, and plays on when it can. Only the moderator's own browser may
    /// say it is the projector; a change made meanwhile by whoever drives stands.
    @Test func everyoneWaitsForTheRoomsProjectorWhileItBuffers() async throws {
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: scratch)
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let videoId = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
            try #require(try await client.waitForVideo(videoId, token: token)["status"] as? String == "ready")
            let code = try await RoomTests.openRoom(client, token: token)
            let moderator = try await client.socket(code: code)
            _ = try await moderator.hello(["role": "moderator", "token": token])
            let projector = try await client.socket(code: code)
            _ = try await projector.hello(["role": "viewer", "token": token, "projector": true])
            let stranger = try await client.socket(code: code, headers: Self.viewer(7))
            _ = try await stranger.hello(["role": "viewer", "projector": true])

            try await moderator.send(#"{"type":"showVideo","id":"s1","videoId":"\#(videoId)"}"#)
            try await moderator.send(#"{"type":"playback","id":"p1","action":"play"}"#)
            #expect(Self.playback(try await projector.next(ofType: "playback"))?["state"] as? String == "stopped")
            #expect(Self.playback(try await projector.next(ofType: "playback"))?["state"] as? String == "playing")

            // Anyone else saying so changes nothing.
            try await stranger.send(#"{"type":"buffering","buffering":true}"#)
            #expect(try await stranger.next(ofType: "error")?["code"] as? String == "forbidden")

            // The projector buffers: paused for everyone; it can play: playing again, anchored ahead.
            try await projector.send(#"{"type":"buffering","buffering":true}"#)
            let paused = try #require(Self.playback(try await stranger.next(ofType: "playback")))
            #expect(paused["state"] as? String == "paused")
            try await projector.send(#"{"type":"buffering","buffering":false}"#)
            let resumed = try #require(Self.playback(try await stranger.next(ofType: "playback")))
            #expect(resumed["state"] as? String == "playing")
            #expect(resumed["position"] as? Double == paused["position"] as? Double)
            #expect((resumed["anchor"] as? Double ?? 0) > (paused["anchor"] as? Double ?? 0))

            // Held again, the moderator seeks meanwhile: the projector's recovery does not undo it.
            try await projector.send(#"{"type":"buffering","buffering":true}"#)
            #expect(Self.playback(try await stranger.next(ofType: "playback"))?["state"] as? String == "paused")
            try await moderator.send(#"{"type":"playback","id":"k1","action":"seek","position":0.5}"#)
            #expect(Self.playback(try await stranger.next(ofType: "playback"))?["position"] as? Double == 0.5)
            try await projector.send(#"{"type":"buffering","buffering":false}"#)
            // (A pong after it: the projector's message has been handled.)
            try await projector.send(#"{"type":"ping","t":1}"#)
            _ = try await projector.next(ofType: "pong")
            let late = try await client.socket(code: code, headers: Self.viewer(8))
            let welcome = try await late.hello(["role": "viewer"])
            let now = try #require(Self.playback(welcome["snapshot"] as? [String: Any]))
            #expect(now["state"] as? String == "paused")
            #expect(now["position"] as? Double == 0.5)
        }
    }
}
