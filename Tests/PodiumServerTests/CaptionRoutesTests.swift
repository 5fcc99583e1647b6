import Foundation
import Hummingbird
import NIOCore
import PodiumMedia
import Testing

/// A clip's caption tracks over HTTP on SQLite and PostgreSQL: an SRT upload converted to
/// WebVTT, refusals with their codes, a cue's edit, deletion, and the master playlist that lists
/// the tracks as subtitle renditions under the clip's stream token.
@Suite("Caption routes", .timeLimit(.minutes(2)))
struct CaptionRoutesTests {
    static let srt =
        "1\r\n00:00:00,200 --> 00:00:01,500\r\nHello <font color=\"red\">room</font>\r\n\r\n2\r\n00:00:01,500 --> 00:00:02,000\r\nBye\r\n"

    @Test(arguments: TestStores.kinds) func tracksAreUploadedListedEditedServedAndDeleted(_ kind: StoreKind) async throws {
        let server = VideoLibraryTests.server(kind) { $0.maxCaptionBytes = 2048 }
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: work)
        try await server.run { client in
            let token = try await client.login()
            let id = try #require(try await client.uploadVideo(clip, token: token).object()["id"] as? String)
            let video = try await client.waitForVideo(id, token: token)
            #expect(video["status"] as? String == "ready")
            let masterURL = try #require(video["masterPlaylistUrl"] as? String)
            let base = String(masterURL[...(masterURL.lastIndex(of: "/") ?? masterURL.startIndex)])
            // Without tracks the master lists no subtitles.
            #expect(!String(buffer: try await client.request(.get, masterURL).body).contains("SUBTITLES"))

            func put(_ language: String, _ text: String, query: String = "") async throws -> TestResponse {
                try await client.request(
                    .put, "/api/v1/videos/\(id)/captions/\(language)\(query)", token: token,
                    headers: [.contentType: "application/x-subrip"], body: ByteBuffer(string: text))
            }
            let created = try await put("en", Self.srt, query: "?label=English&kind=captions")
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let track = try created.object()
            #expect(track["language"] as? String == "en")
            #expect(track["label"] as? String == "English")
            #expect(track["kind"] as? String == "captions")
            #expect(track["cueCount"] as? Int == 2)
            let cues = try #require(track["cues"] as? [[String: Any]])
            #expect(cues.first?["text"] as? String == "Hello room")
            #expect(cues.first?["start"] as? Double == 0.2)
            let vttURL = try #require(track["url"] as? String)
            // Under a stream token of its own (minted now: its expiry second may differ from the
            // master's), beside the clip's files; it opens the track further down.
            #expect(vttURL.hasPrefix("/stream/") && vttURL.hasSuffix("/captions-en.vtt"), "\(vttURL)")

            // Replacing answers 200; a second language is listed beside it.
            #expect(try await put("en", Self.srt, query: "?label=English&kind=captions").status == .ok)
            #expect(try await put("de", "WEBVTT\n\n00:00.500 --> 00:01.000\nHallo\n", query: "?label=Deutsch").status == .created)
            let list = try await client.request(.get, "/api/v1/videos/\(id)/captions", token: token).array()
            #expect(list.map { $0["language"] as? String } == ["de", "en"])
            #expect(list.allSatisfy { $0["cues"] == nil })

            // Refusals, each with its code, and nothing stored.
            for (language, text, status, code) in [
                ("fr", "1\n00:00:01,000 --> 00:00:xx,000\nA\n", HTTPResponse.Status.unprocessableContent, "caption_time"),
                ("fr", "1\n00:00:02,000 --> 00:00:01,000\nA\n", .unprocessableContent, "caption_order"),
                ("fr", "just text\n", .unprocessableContent, "caption_cue"),
                ("fr", "1\n00:00:01,000 --> 00:00:02,000\n<script>alert(1)</script>\n", .unprocessableContent, "caption_markup"),
                (
                    "fr", String(repeating: "1\n00:00:01,000 --> 00:00:02,000\nA long enough line\n\n", count: 60),
                    .contentTooLarge,
                    "caption_too_large"
                ),
                ("en_US", Self.srt, .badRequest, "caption_language"),
            ] {
                let refused = try await put(language, text)
                #expect(refused.status == status && refused.errorCode == code, "\(code): \(String(buffer: refused.body))")
                // What a client needs to say it in its own language: the cue at fault, the limit.
                let detail = (try? refused.object())?["error"] as? [String: Any]
                let expected: [String: Int] =
                    switch code {
                    case "caption_too_large": ["maxKB": 2]
                    case "caption_language": [:]
                    default: ["cue": 1]
                    }
                #expect(
                    (detail ?? [:]).filter { ["cue", "maxKB"].contains($0.key) }.compactMapValues { $0 as? Int } == expected,
                    "\(code): \(String(buffer: refused.body))")
            }
            #expect(try await put("fr", Self.srt, query: "?kind=karaoke").errorCode == "caption_kind")
            #expect(try await client.request(.get, "/api/v1/videos/\(id)/captions", token: token).array().count == 2)

            // One cue's text edited; its markup cleaned like an upload's.
            let edited = try await client.request(
                .patch, "/api/v1/videos/\(id)/captions/en/cues/1", token: token,
                json: #"{"text":"<i>See</i> you <b onclick=x>soon</b>"}"#)
            #expect(edited.status == .ok)
            let editedCues = try #require(try edited.object()["cues"] as? [[String: Any]])
            #expect(editedCues.map { $0["text"] as? String } == ["Hello room", "<i>See</i> you <b>soon</b>"])
            #expect(editedCues.last?["end"] as? Double == 2)
            #expect(
                try await client.request(.patch, "/api/v1/videos/\(id)/captions/en/cues/7", token: token, json: #"{"text":"x"}"#)
                    .status == .notFound)
            // HTML in an edit: refused with the cue's number (1-based), the cue left as it was.
            let html = try await client.request(
                .patch, "/api/v1/videos/\(id)/captions/en/cues/1", token: token, json: #"{"text":"<img src=x onerror=alert(1)>"}"#
            )
            #expect(html.status == .unprocessableContent && html.errorCode == "caption_markup", "\(String(buffer: html.body))")
            #expect(((try? html.object())?["error"] as? [String: Any])?["cue"] as? Int == 2)
            let kept = try await client.request(.get, "/api/v1/videos/\(id)/captions/en", token: token).object()
            #expect((kept["cues"] as? [[String: Any]])?.last?["text"] as? String == "<i>See</i> you <b>soon</b>")

            // The stream: the master lists both tracks, each a playlist of one WebVTT segment.
            let master = String(buffer: try await client.request(.get, masterURL).body)
            #expect(master.contains(#"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en""#))
            #expect(master.contains(#"NAME="Deutsch",LANGUAGE="de""#))
            let variants = master.components(separatedBy: "\n").filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }
            #expect(!variants.isEmpty && variants.allSatisfy { $0.contains(#"SUBTITLES="subs""#) })
            let media = try await client.request(.get, base + "captions-en.m3u8")
            #expect(media.headers[.contentType] == "application/vnd.apple.mpegurl")
            #expect(String(buffer: media.body).contains("#EXTINF:2.0"))
            #expect(String(buffer: media.body).contains("\ncaptions-en.vtt\n"))
            let vtt = try await client.request(.get, vttURL)
            #expect(vtt.headers[.contentType]?.hasPrefix("text/vtt") == true)
            #expect(
                String(buffer: vtt.body)
                    == "WEBVTT\n\n1\n00:00:00.200 --> 00:00:01.500\nHello room\n\n2\n00:00:01.500 --> 00:00:02.000\n<i>See</i> you <b>soon</b>\n"
            )
            #expect(try await client.request(.get, base + "captions-fr.vtt").status == .notFound)

            // Another person sees none of it.
            #expect(try await client.request(.get, "/api/v1/videos/\(id)/captions").status == .unauthorized)

            #expect(try await client.request(.delete, "/api/v1/videos/\(id)/captions/de", token: token).status == .noContent)
            #expect(try await client.request(.delete, "/api/v1/videos/\(id)/captions/de", token: token).status == .notFound)
            #expect(try await client.request(.get, base + "captions-de.vtt").status == .notFound)
            #expect(!String(buffer: try await client.request(.get, masterURL).body).contains("LANGUAGE=\"de\""))
        }
    }
}
