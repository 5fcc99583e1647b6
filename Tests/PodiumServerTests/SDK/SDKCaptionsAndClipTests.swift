import Foundation
import NIOCore
import PodiumClient
import PodiumMedia
import Testing

/// #41 through the Swift SDK against the real server: a clip's caption tracks (an SRT upload
/// converted, listed, read with its cues, one cue's text edited, a refusal's code, deleted) and
/// how it is presented (its trim and loop, and a trim the server refuses).
@Suite("Swift SDK: captions and presenting clips", .timeLimit(.minutes(2)))
struct SDKCaptionsAndClipTests {
    static let srt = """
        1
        00:00:00,000 --> 00:00:01,000
        Hello <font color="red">room</font>

        2
        00:00:01,000 --> 00:00:02,000
        Second cue

        """

    @Test(arguments: TestStores.kinds) func captionsAndTheClipsTrimGoThroughTheSDK(_ kind: StoreKind) async throws {
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let server = TestServer(store: kind) { $0.videoLimits = VideoLimits(segmentSeconds: 1) }
        defer { server.removeData() }
        // One rung: packaged whole at once.
        let clip = work.appendingPathComponent("small.mp4")
        let made = try await SystemToolRunner().run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", "-c:a", "aac", clip.path,
            ], limits: ToolLimits(timeout: .seconds(60)))
        #expect(made.succeeded, "ffmpeg: \(made.stderr)")
        try await server.run { client in
            let podium = try await client.adminSDK()
            let id = try await podium.uploadVideo(file: clip, title: "Captioned").item.id
            _ = try await podium.waitUntilPackagedWhole(video: id)

            // An SRT track, converted, its markup cleaned, listed with its label and kind.
            let track = try await podium.putCaptionTrack(
                video: id, language: "en", text: Self.srt, label: "English", kind: "captions")
            #expect(track.language == "en" && track.label == "English" && track.kind == "captions")
            #expect(track.cues?.map(\.text) == ["Hello room", "Second cue"])
            #expect(track.cues?.last?.start == 1 && track.cues?.last?.end == 2)
            let listed = try await podium.captionTracks(video: id)
            #expect(listed.map(\.language) == ["en"] && listed.first?.cueCount == 2 && listed.first?.cues == nil)
            let url = try #require(listed.first?.url)
            let vtt = String(buffer: try await client.request(.get, url).body)
            #expect(vtt.hasPrefix("WEBVTT") && vtt.contains("Hello room"), "\(vtt)")
            // One cue's text edited; its times stay.
            let edited = try await podium.editCaptionCue(video: id, language: "en", index: 1, text: "Second line, fixed")
            #expect(edited.cues?.map(\.text) == ["Hello room", "Second line, fixed"])
            #expect(try await podium.captionTrack(video: id, language: "en").cues?[1].start == 1)
            // The master playlist lists the track as a subtitle rendition.
            let video = try await podium.video(id: id)
            let master = String(buffer: try await client.request(.get, try #require(video.masterPlaylistUrl)).body)
            #expect(master.contains("TYPE=SUBTITLES") && master.contains(#"LANGUAGE="en""#), "\(master)")
            // A file whose cue ends before it starts is refused with its code.
            do {
                _ = try await podium.putCaptionTrack(
                    video: id, language: "de", text: "WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nRückwärts\n")
                Issue.record("a cue ending before it starts was taken")
            } catch let error as PodiumError {
                #expect(error.code == "caption_order" && error.status == 422, "\(error)")
            }
            try await podium.deleteCaptionTrack(video: id, language: "en")
            #expect(try await podium.captionTracks(video: id).isEmpty)

            // Its trim and loop, kept as metadata; a trim past its end is refused.
            let trimmed = try await podium.setVideoClip(id: id, VideoClipSettings(trimStart: 0.5, trimEnd: 1.5, loop: true))
            #expect(trimmed.trimStart == 0.5 && trimmed.trimEnd == 1.5 && trimmed.loop == true)
            #expect(try await podium.video(id: id).trimEnd == 1.5)
            do {
                _ = try await podium.setVideoClip(id: id, VideoClipSettings(trimStart: 1, trimEnd: 9))
                Issue.record("a trim past the clip's end was taken")
            } catch let error as PodiumError {
                #expect(error.code == "invalid_trim", "\(error)")
            }
            #expect(try await podium.video(id: id).trimStart == 0.5)
        }
    }
}
