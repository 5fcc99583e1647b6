import Foundation
import HTTPTypes
import NIOCore
import PodiumStore
import Testing

/// Presenting clips (issue #41): a clip's trim and loop are kept on the video (both databases),
/// set by `PUT /api/v1/videos/{id}/clip` with clear refusals, carried onto a stage (and onto a
/// stage that shows the clip when they change); packaging
/// measures its loudness and the API shows it.
@Suite("Clip trim, loop and loudness", .timeLimit(.minutes(2)))
struct VideoClipTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: TestStores.kinds) func theTrimLoopAndLoudnessAreStoredAndPackagingKeepsTheTrim(_ kind: StoreKind)
        async throws
    {
        try await TestStores.with(kind) { store in
            try await store.insertUser(
                UserRecord(
                    id: "u1", email: "ada@example.org", name: "Ada", role: .presenter, passwordHash: "h", createdAt: Self.t0))
            var video = VideoRecord(
                id: "v1", ownerId: "u1", folderId: nil, title: "Intro", status: .queued,
                sourceHash: String(repeating: "a", count: 64) + ".video", sourceBytes: 10, createdAt: Self.t0)
            try await store.insertVideo(video)
            #expect(try await store.video(id: "v1")?.loops == false)
            #expect(try await store.video(id: "v1")?.trimStart == nil)

            #expect(try await store.updateVideoClip(id: "v1", trimStart: 1.25, trimEnd: 3.5, loops: true))
            #expect(try await !store.updateVideoClip(id: "nope", trimStart: nil, trimEnd: nil, loops: false))
            // A packaging job saving its (older) copy keeps the trim, and stores the loudness.
            video.status = .ready
            video.duration = 4
            video.loudness = -23.4
            try await store.updateVideo(video)
            let stored = try #require(try await store.video(id: "v1"))
            #expect(stored.trimStart == 1.25 && stored.trimEnd == 3.5 && stored.loops)
            #expect(stored.loudness == -23.4 && stored.status == .ready)
            // Cleared.
            #expect(try await store.updateVideoClip(id: "v1", trimStart: nil, trimEnd: 2, loops: false))
            let cleared = try #require(try await store.video(id: "v1"))
            #expect(cleared.trimStart == nil && cleared.trimEnd == 2 && !cleared.loops)
        }
    }

    @Test func theRouteSetsValidatesAndClearsAClipsTrimAndLoopAndAStageTakesThem() async throws {
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clip = try await VideoClipMaker.mp4(seconds: 3, in: scratch)
        try await TestServer.withLiveSession { client, token, code in
            let uploaded = try await client.uploadVideo(clip, token: token, title: "Clip")
            let videoId = try #require(try uploaded.object()["id"] as? String)
            let video = try await client.waitForVideo(videoId, token: token)
            try #require(video["status"] as? String == "ready", "\(video)")
            #expect(video["loop"] as? Bool == false)
            #expect(video["trimStart"] == nil && video["trimEnd"] == nil)
            // The upload's loudness, as measured (the test tone is at 1/8 of full scale: about -21 LUFS).
            let loudness = try #require(video["loudness"] as? Double)
            #expect((-30.0 ... -12.0).contains(loudness), "\(loudness)")

            let path = "/api/v1/videos/\(videoId)/clip"
            let set = try await client.request(.put, path, token: token, json: #"{"trimStart":0.5,"trimEnd":2.25,"loop":true}"#)
            #expect(set.status == .ok)
            let answer = try set.object()
            #expect(answer["trimStart"] as? Double == 0.5 && answer["trimEnd"] as? Double == 2.25)
            #expect(answer["loop"] as? Bool == true)
            let shown = try await client.request(.get, "/api/v1/videos/\(videoId)", token: token).object()
            #expect(shown["trimEnd"] as? Double == 2.25 && shown["loop"] as? Bool == true)

            for (body, status, code) in [
                (#"{"trimStart":2,"trimEnd":1}"#, HTTPResponse.Status.badRequest, "invalid_trim"),
                (#"{"trimStart":1,"trimEnd":1}"#, .badRequest, "invalid_trim"),
                (#"{"trimStart":-1}"#, .badRequest, "invalid_trim"),
                (#"{"trimEnd":99}"#, .badRequest, "invalid_trim"),
                (#"{"trimStart":3.5}"#, .badRequest, "invalid_trim"),
                (#"{"loop":"yes"}"#, .badRequest, nil),
            ] as [(String, HTTPResponse.Status, String?)] {
                let refused = try await client.request(.put, path, token: token, json: body)
                #expect(refused.status == status, "\(body)")
                if let code { #expect(refused.errorCode == code, "\(body)") }
            }
            // Refused, nothing changed; another person's clip is not found.
            let unchanged = try await client.request(.get, "/api/v1/videos/\(videoId)", token: token).object()
            #expect(unchanged["trimStart"] as? Double == 0.5)
            #expect(try await client.request(.put, "/api/v1/videos/nope/clip", token: token, json: "{}").status == .notFound)

            // On stage: the reference carries the trim and loop, stopped at the trim's start.
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])
            try await presenter.send(#"{"type":"showVideo","id":"v1","videoId":"\#(videoId)"}"#)
            let playback = try #require(try await presenter.next(ofType: "playback")?["playback"] as? [String: Any])
            #expect(playback["start"] as? Double == 0.5 && playback["end"] as? Double == 2.25)
            #expect(playback["loop"] as? Bool == true)
            #expect(playback["position"] as? Double == 0.5)
            // A seek outside the trim lands at its nearer end.
            try await presenter.send(#"{"type":"playback","id":"p1","action":"seek","position":2.9}"#)
            let sought = try #require(try await presenter.next(ofType: "playback")?["playback"] as? [String: Any])
            #expect(sought["position"] as? Double == 2.25)
            // The viewer saw both.
            for position in [0.5, 2.25] {
                #expect(
                    (try await viewer.next(ofType: "playback")?["playback"] as? [String: Any])?["position"] as? Double == position
                )
            }

            // Cleared: the whole clip again, not looping.
            let clearedResponse = try await client.request(.put, path, token: token, json: #"{"trimStart":null}"#)
            #expect(clearedResponse.status == .ok)
            let cleared = try clearedResponse.object()
            #expect(cleared["trimStart"] == nil && cleared["trimEnd"] == nil && cleared["loop"] as? Bool == false)
            // The clip is on stage: the change applies now, on every screen, without a new show.
            // The reference keeps its place and the files the screens play (none reloads). (After
            // each change the presenter changes the speed: the event that must come first comes
            // before that one, and a test without it fails at once instead of waiting.)
            try await presenter.send(#"{"type":"playback","id":"r1","action":"rate","rate":1.5}"#)
            for socket in [presenter, viewer] {
                let live = try #require(try await socket.next(ofType: "playback")?["playback"] as? [String: Any])
                #expect(live["start"] == nil && live["end"] == nil && live["loop"] == nil, "\(live)")
                #expect(live["position"] as? Double == 2.25 && live["rate"] as? Double == 1, "\(live)")
                #expect(
                    (live["media"] as? [String: Any])?["playlist"] as? String
                        == (playback["media"] as? [String: Any])?["playlist"] as? String)
                #expect((try await socket.next(ofType: "playback")?["playback"] as? [String: Any])?["rate"] as? Double == 1.5)
            }
            // A new trim that ends before where the clip is: it waits at the new end.
            #expect(
                try await client.request(.put, path, token: token, json: #"{"trimStart":1,"trimEnd":2,"loop":true}"#).status
                    == .ok)
            try await presenter.send(#"{"type":"playback","id":"r2","action":"rate","rate":1}"#)
            for socket in [presenter, viewer] {
                let live = try #require(try await socket.next(ofType: "playback")?["playback"] as? [String: Any])
                #expect(live["start"] as? Double == 1 && live["end"] as? Double == 2 && live["loop"] as? Bool == true, "\(live)")
                #expect(live["position"] as? Double == 2 && live["rate"] as? Double == 1.5, "\(live)")
            }
        }
    }
}
