import Foundation
import HTTPTypes
import NIOCore
import PodiumStore
import Testing

@testable import PodiumServer

/// Audio takes (issue #44) with real ffmpeg: an Opus WebM made by ffmpeg from a sine, cut into
/// chunks as MediaRecorder sends them (the first holds the header), sent out of order, retried,
/// too large; stopped, packaged as HLS audio whose duration ffprobe finds equal to the source's;
/// a bad first chunk and a damaged take refused clearly; a take whose sender went away stopped by
/// the sweep and packaged up to its last chunk; only the host listens.
@Suite("Audio recordings", .timeLimit(.minutes(2)))
struct RecordingTests {
    static let csrf = HTTPField.Name("X-Podium-Request")!

    /// An Opus WebM of `seconds` of a sine, made by ffmpeg, and its duration by ffprobe.
    static func source(seconds: Int, in directory: URL) async throws -> (Data, Double) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("source.webm")
        _ = try await InkTests.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)",
                "-c:a", "libopus", "-b:a", "32k", file.path,
            ])
        return (try Data(contentsOf: file), try await duration(file.path))
    }

    static func duration(_ path: String, headers: String? = nil) async throws -> Double {
        var arguments = ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1"]
        if let headers { arguments += ["-headers", headers] }
        let output = try await InkTests.run("ffprobe", arguments + [path])
        return Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The bytes cut into `count` chunks, as MediaRecorder's timeslice does (the first holds the header).
    static func chunks(_ data: Data, count: Int) -> [Data] {
        let size = (data.count + count - 1) / count
        return stride(from: 0, to: data.count, by: size).map { data.subdata(in: $0..<min($0 + size, data.count)) }
    }

    static func start(_ client: Client, token: String, code: String, expect status: HTTPResponse.Status = .created)
        async throws -> TestResponse
    {
        let response = try await client.request(
            .post, "/api/v1/sessions/\(code)/recordings", token: token,
            json: #"{"startedAt":"2026-11-30T09:00:01.250Z","mimeType":"audio/webm;codecs=opus"}"#)
        #expect(response.status == status, "\(String(buffer: response.body))")
        return response
    }

    static func put(_ client: Client, token: String, _ id: String, _ n: Int, _ data: Data) async throws -> TestResponse {
        try await client.request(
            .put, "/api/v1/recordings/\(id)/chunks/\(n)", token: token, headers: [.contentType: "application/octet-stream"],
            body: ByteBuffer(bytes: data))
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        (try response.object()["error"] as? [String: Any])?["code"] as? String
    }

    static func take(_ client: Client, token: String, code: String, id: String) async throws -> [String: Any]? {
        let list = try await client.request(.get, "/api/v1/sessions/\(code)/recordings", token: token).object()
        return (list["recordings"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// Waits until the take is packaged (ready or failed); its JSON.
    static func packaged(_ client: Client, token: String, code: String, id: String) async throws -> [String: Any] {
        var found: [String: Any] = [:]
        try await waitUntil("recording \(id) packaged", seconds: 25) {
            found = try await take(client, token: token, code: code, id: id) ?? [:]
            let status = found["status"] as? String
            return status == "ready" || status == "failed"
        }
        return found
    }

    @Test(arguments: TestStores.kinds) func aTakeSentInChunksIsPackagedAsHLSAudioOfItsLength(_ kind: StoreKind) async throws {
        let server = TestServer(store: kind)
        defer { server.removeData() }
        let (audio, sourceDuration) = try await Self.source(
            seconds: 8, in: server.configuration.dataDirectory.appendingPathComponent("work"))
        let chunks = Self.chunks(audio, count: 5)
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let started = try await Self.start(client, token: token, code: code).object()
            let id = try #require(started["id"] as? String)
            #expect(started["status"] as? String == "recording")
            #expect(
                started["startedAt"] as? String == "2026-11-30T09:00:01Z"
                    || started["startedAt"] as? String == "2026-11-30T09:00:01.250Z")
            #expect(started["chunks"] as? Int == 0 && started["bytes"] as? Int == 0)
            #expect(started["duration"] is NSNull && started["playlistUrl"] is NSNull && started["error"] is NSNull)
            // One take at a time while it sends.
            #expect(
                try Self.errorCode(try await Self.start(client, token: token, code: code, expect: .conflict))
                    == "recording_in_progress")

            // Out of order: the one expected is said.
            let early = try await Self.put(client, token: token, id, 1, chunks[1])
            #expect(early.status == .conflict)
            #expect(try Self.errorCode(early) == "chunk_out_of_order")
            #expect((try early.object()["error"] as? [String: Any])?["expected"] as? Int == 0)
            let first = try await Self.put(client, token: token, id, 0, chunks[0])
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            #expect(try first.object()["chunks"] as? Int == 1 && first.object()["bytes"] as? Int == chunks[0].count)
            // A retry (its answer lost): taken again, nothing appended.
            let retry = try await Self.put(client, token: token, id, 0, chunks[0])
            #expect(try retry.status == .ok && retry.object()["chunks"] as? Int == 1)
            // Another chunk under a number already taken: refused.
            #expect(try await Self.put(client, token: token, id, 0, chunks[1].prefix(10)).status == .conflict)
            // Too large: 413, nothing kept.
            let huge = try await Self.put(client, token: token, id, 1, Data(count: (1 << 20) + 1))
            #expect(huge.status == .contentTooLarge)
            #expect(try Self.errorCode(huge) == "chunk_too_large")
            for n in 1..<chunks.count {
                let answer = try await Self.put(client, token: token, id, n, chunks[n])
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            }
            #expect(try await Self.take(client, token: token, code: code, id: id)?["bytes"] as? Int == audio.count)
            #expect(
                try Data(contentsOf: server.configuration.blobDirectory.appendingPathComponent("recordings/\(id).webm")) == audio)

            let stopped = try await client.request(.post, "/api/v1/recordings/\(id)/stop", token: token)
            #expect(stopped.status == .ok)
            #expect(try stopped.object()["status"] as? String == "packaging")
            #expect(
                try Self.errorCode(try await Self.put(client, token: token, id, chunks.count, chunks[0])) == "recording_stopped")
            // The last chunk retried after the stop is still acknowledged.
            #expect(try await Self.put(client, token: token, id, chunks.count - 1, chunks.last!).status == .ok)

            let ready = try await Self.packaged(client, token: token, code: code, id: id)
            #expect(ready["status"] as? String == "ready", "\(ready)")
            let duration = try #require(ready["duration"] as? Int)
            #expect(abs(Double(duration) / 1000 - sourceDuration) < 0.25, "\(duration) ms for \(sourceDuration) s")
            let playlistURL = try #require(ready["playlistUrl"] as? String)
            #expect(playlistURL == "/api/v1/recordings/\(id)/hls/master.m3u8")
            // A master playlist saying what the audio is (ffprobe's codec of the package), so an
            // HLS player knows there is no video; it names the media playlist.
            let master = try await client.request(.get, playlistURL, token: token)
            #expect(master.status == .ok)
            #expect(master.headers[.contentType] == "application/vnd.apple.mpegurl")
            let masterText = String(buffer: master.body)
            #expect(masterText.contains(#"CODECS="mp4a.40.2""#), "\(masterText)")
            #expect(masterText.contains("#EXT-X-STREAM-INF:BANDWIDTH="), "\(masterText)")
            #expect(masterText.split(separator: "\n").last == "index.m3u8", "\(masterText)")
            let playlist = try await client.request(.get, "/api/v1/recordings/\(id)/hls/index.m3u8", token: token)
            #expect(playlist.status == .ok)
            #expect(String(buffer: playlist.body).contains("#EXT-X-ENDLIST"))
            // The playlist plays over HTTP: ffprobe fetches it and its segments as the host.
            let played = try await Self.duration(
                "http://127.0.0.1:\(client.port)\(playlistURL)", headers: "Authorization: Bearer \(token)\r\n")
            #expect(abs(played - sourceDuration) < 0.25, "\(played) s played for \(sourceDuration) s")
            #expect(try await client.request(.get, "/api/v1/recordings/\(id)/hls/.work", token: token).status == .notFound)
            // A take packaged before master playlists were written still opens by its master.
            try FileManager.default.removeItem(
                at: server.configuration.blobDirectory.appendingPathComponent("recordings/\(id)/master.m3u8"))
            let older = try await client.request(.get, playlistURL, token: token)
            #expect(older.status == .ok && String(buffer: older.body).contains(#"CODECS="mp4a.40.2""#))
            let playedOlder = try await Self.duration(
                "http://127.0.0.1:\(client.port)\(playlistURL)", headers: "Authorization: Bearer \(token)\r\n")
            #expect(abs(playedOlder - sourceDuration) < 0.25, "\(playedOlder) s played for \(sourceDuration) s")

            // Only the host listens: another presenter is refused, and so is nobody.
            #expect(
                try await client.request(
                    .post, "/api/v1/users", token: token, json: #"{"email":"p@school.test","password":"presenter pass"}"#
                ).status == .created)
            let other = try await client.login(email: "p@school.test", password: "presenter pass")
            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/recordings", token: other).status == .forbidden)
            #expect(try await client.request(.get, playlistURL, token: other).status == .forbidden)
            // Not shared: refused to anyone but its host, signed in or not, as the replay is.
            #expect(try await client.request(.get, playlistURL).status == .forbidden)
            #expect(try await Self.put(client, token: other, id, 0, chunks[0]).status == .forbidden)
            #expect(try await Self.start(client, token: other, code: code, expect: .forbidden).status == .forbidden)
        }
    }

    @Test func aBadFirstChunkIsRefusedAndADamagedTakeFailsClearly() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let (audio, _) = try await Self.source(seconds: 3, in: server.configuration.dataDirectory.appendingPathComponent("work"))
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let id = try #require(try await Self.start(client, token: token, code: code).object()["id"] as? String)
            let notAudio = try await Self.put(client, token: token, id, 0, Data("%PDF-1.7 not audio".utf8))
            #expect(notAudio.status == .unprocessableContent)
            #expect(try Self.errorCode(notAudio) == "bad_audio")
            #expect(try await Self.take(client, token: token, code: code, id: id)?["chunks"] as? Int == 0)

            // A header, then noise: taken (chunks are not decoded as they come), refused when packaged.
            var generator = SystemRandomNumberGenerator()
            let noise = Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(try await Self.put(client, token: token, id, 0, audio.prefix(200)).status == .ok)
            #expect(try await Self.put(client, token: token, id, 1, noise).status == .ok)
            #expect(try await client.request(.post, "/api/v1/recordings/\(id)/stop", token: token).status == .ok)
            let failed = try await Self.packaged(client, token: token, code: code, id: id)
            #expect(failed["status"] as? String == "failed")
            let error = try #require(failed["error"] as? [String: Any])
            #expect(error["code"] as? String == "bad_audio")
            #expect((error["message"] as? String)?.contains("could not be read") == true)
            #expect(failed["playlistUrl"] is NSNull)
        }
    }

    @Test func aTakeWhoseSenderWentAwayIsStoppedBySweepAndPackagedUpToItsLastChunk() async throws {
        let clock = SteppedClock()
        // Every sweep, as it happens: the test waits on one instead of sleeping.
        let (sweeps, swept) = AsyncStream.makeStream(of: Sweep.self)
        let server = TestServer {
            $0.recordings.sweepInterval = .milliseconds(20)
            $0.recordings.onSweep = { at, stopped in swept.yield(Sweep(at: at, stopped: stopped)) }
        }
        defer { server.removeData() }
        let (audio, sourceDuration) = try await Self.source(
            seconds: 10, in: server.configuration.dataDirectory.appendingPathComponent("work"))
        let chunks = Self.chunks(audio, count: 10)
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let id = try #require(try await Self.start(client, token: token, code: code).object()["id"] as? String)
            // Half the chunks, then the laptop closes.
            for n in 0..<5 { #expect(try await Self.put(client, token: token, id, n, chunks[n]).status == .ok) }
            clock.advance(119)
            // Not yet two minutes without a chunk: a sweep that read the moved clock stops nothing.
            let moved = clock.now
            var next = sweeps.makeAsyncIterator()
            while let sweep = await next.next() {
                guard sweep.at >= moved else { continue }
                #expect(sweep.stopped.isEmpty)
                break
            }
            #expect(try await Self.take(client, token: token, code: code, id: id)?["status"] as? String == "recording")
            clock.advance(2)
            let ready = try await Self.packaged(client, token: token, code: code, id: id)
            #expect(ready["status"] as? String == "ready", "\(ready)")
            let duration = Double(try #require(ready["duration"] as? Int)) / 1000
            // Up to its last chunk: about half the source, cut where the fifth chunk ended.
            #expect(duration > sourceDuration * 0.3 && duration < sourceDuration * 0.7, "\(duration) s of \(sourceDuration) s")
            // A new take of the session may start now.
            _ = try await Self.start(client, token: token, code: code)
        }
    }
}

/// One sweep of stalled takes, as ``RecordingSettings/onSweep`` tells it.
struct Sweep: Sendable {
    let at: Date
    let stopped: [String]
}
