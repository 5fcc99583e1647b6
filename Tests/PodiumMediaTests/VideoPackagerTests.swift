import Foundation
import Synchronization
import Testing

@testable import PodiumMedia

@Suite("VideoPackager")
struct VideoPackagerTests {
    static let limits = VideoLimits(segmentSeconds: 1)

    @Test("a 720p clip packages to 720/480/360 plus audio, keyframes at every segment, poster, sprite and MP4")
    func packagesLadder() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = try await VideoClips.make(VideoClips.hd, in: work)
        let probed = try await VideoProbe(limits: Self.limits).probe(source)
        let log = ProgressLog()
        let output = work.appendingPathComponent("hls")
        let packaged = try await VideoPackager(limits: Self.limits).package(source, probed: probed, into: output) {
            log.record($0)
        }

        // The ladder never goes above the source: no 1080.
        let heights = packaged.variants.compactMap(\.height)
        #expect(heights == [720, 480, 360])
        #expect(packaged.variants.allSatisfy { $0.bandwidth > 0 && !$0.codecs.isEmpty })
        // The audio is every video variant's group, not a variant of its own (see MasterPlaylist).
        #expect(packaged.variants.allSatisfy { $0.height != nil && $0.codecs.contains("mp4a") })
        let master = try String(contentsOf: output.appendingPathComponent(packaged.masterPlaylist), encoding: .utf8)
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO"))
        for variant in packaged.variants {
            let playlist = try Self.mediaPlaylist(output.appendingPathComponent(variant.playlist))
            // Every segment is one second long but the last, which may be shorter.
            #expect(playlist.durations.dropLast().allSatisfy { abs($0 - 1) < 0.05 })
            #expect(abs(playlist.durations.reduce(0, +) - 4) < 0.1)
            if variant.height != nil {
                #expect(playlist.durations.count == 4)
                try await Self.expectKeyframeAtEachSegmentStart(playlist, work: work)
            }
        }

        let poster = try #require(packaged.poster)
        #expect(try TestSupport.jpegSize(output.appendingPathComponent(poster))! == (1280, 720))
        let track = ThumbnailTrack(duration: probed.duration, width: 1280, height: 720)
        let sprite = try #require(packaged.thumbnailSprite)
        #expect(try TestSupport.jpegSize(output.appendingPathComponent(sprite))! == (160 * 4, 90))
        let vtt = try String(contentsOf: output.appendingPathComponent(try #require(packaged.thumbnailTrack)), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT"))
        #expect(vtt.contains("00:00:03.000 --> 00:00:04.000\nthumbnails.jpg#xywh=480,0,160,90"))
        #expect(track.count == 4)

        // The MP4 is the middle rendition (480), with its index before its media (faststart).
        let mp4 = output.appendingPathComponent(try #require(packaged.mp4))
        let streams = try await VideoClips.probeJSON(["-show_streams", mp4.path])["streams"] as? [[String: Any]]
        #expect(streams?.compactMap { $0["height"] as? Int } == [480])
        #expect(streams?.contains { $0["codec_type"] as? String == "audio" } == true)
        let bytes = try Data(contentsOf: mp4)
        let moov = try #require(bytes.range(of: Data("moov".utf8)))
        let mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound)

        // Progress counted up through the clip to its end.
        let packaging = log.reports(stage: "packaging")
        #expect(packaging.first?.done == 0)
        #expect(packaging.last.map { $0.done == $0.total } == true)
        #expect(zip(packaging, packaging.dropFirst()).allSatisfy { $0.done <= $1.done })
        #expect(packaged.files.contains("master.m3u8"))
    }

    @Test("a WebM VP9 clip under 360 lines packages at its own height")
    func packagesSmallWebM() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = try await VideoClips.make(VideoClips.webm, in: work)
        let probed = try await VideoProbe(limits: Self.limits).probe(source)
        let packaged = try await VideoPackager(limits: Self.limits).package(
            source, probed: probed, into: work.appendingPathComponent("hls")
        ) { _ in }
        #expect(packaged.variants.compactMap(\.height) == [240])
        #expect(packaged.variants.count == 1)
        #expect(packaged.mp4 != nil)
    }

    @Test("a phone clip filmed upright is recorded, packaged and pictured portrait")
    func packagesTurnedClip() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // Stored 640x360, shown 360x640: a phone held upright.
        let stored = try await VideoClips.make(VideoClips.landscape, in: work)
        let source = try await VideoClips.rotated(stored, degrees: 90, in: work)
        let probed = try await VideoProbe(limits: Self.limits).probe(source)
        #expect(probed.width == 360 && probed.height == 640)
        let output = work.appendingPathComponent("hls")
        let packaged = try await VideoPackager(limits: Self.limits).package(source, probed: probed, into: output) { _ in }

        // The ladder is cut by the short side (360 wide), as for a wide clip of 360 lines: one
        // rung, the picture's own size, portrait (cut by the height, it would be 202x360).
        let sizes = packaged.variants.map { [$0.width ?? 0, $0.height ?? 0] }
        #expect(sizes == [[360, 640]])
        let poster = try #require(packaged.poster)
        let posterSize = try #require(try TestSupport.jpegSize(output.appendingPathComponent(poster)))
        #expect(posterSize == (360, 640))
        // The thumbnails are tiles of the same shape: 160 wide, 284 tall.
        let track = ThumbnailTrack(duration: probed.duration, width: probed.width, height: probed.height)
        #expect(track.tileHeight == 284)
        let sprite = try #require(packaged.thumbnailSprite)
        let spriteSize = try #require(try TestSupport.jpegSize(output.appendingPathComponent(sprite)))
        #expect(spriteSize == (160 * track.columns, 284 * track.rows))
        // The copies are turned already: nothing tells a player to turn them again.
        let mp4 = output.appendingPathComponent(try #require(packaged.mp4))
        let streams = try #require(
            try await VideoClips.probeJSON(["-show_streams", "-select_streams", "v:0", mp4.path])["streams"] as? [[String: Any]])
        #expect(streams.first?["width"] as? Int == 360 && streams.first?["height"] as? Int == 640)
        #expect(!"\(streams)".contains("Display Matrix") && !"\(streams)".contains("rotate"))
    }

    @Test("an audio-only file becomes one audio rendition, without pictures")
    func packagesAudioOnly() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = try await VideoClips.make(VideoClips.ogg, in: work)
        let probed = try await VideoProbe(limits: Self.limits).probe(source)
        let output = work.appendingPathComponent("hls")
        let packaged = try await VideoPackager(limits: Self.limits).package(source, probed: probed, into: output) { _ in }
        #expect(packaged.variants.count == 1)
        #expect(packaged.variants[0].height == nil)
        #expect(packaged.poster == nil && packaged.thumbnailSprite == nil && packaged.mp4 == nil)
        let playlist = try Self.mediaPlaylist(output.appendingPathComponent(packaged.variants[0].playlist))
        #expect(abs(playlist.durations.reduce(0, +) - 2) < 0.1)
    }

    @Test("the ladder keeps the rungs at or under the source and falls back to the source's own height")
    func ladder() {
        #expect(VideoPackager.rungs(sourceLines: 2160).map(\.lines) == [1080, 720, 480, 360])
        #expect(VideoPackager.rungs(sourceLines: 1080).map(\.lines) == [1080, 720, 480, 360])
        #expect(VideoPackager.rungs(sourceLines: 719).map(\.lines) == [480, 360])
        #expect(VideoPackager.rungs(sourceLines: 241).map(\.lines) == [240])
    }

    @Test("the ladder command it shows is the one packaging runs")
    func ladderCommandShown() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appendingPathComponent("talk: part 1.mp4")
        let probed = ProbedMedia(
            container: "mov,mp4,m4a,3gp,3g2,mj2", duration: 600, width: 1920, height: 1080, frameRate: 30, hasVideo: true,
            hasAudio: true)
        let runner = RecordingRunner()
        let packager = VideoPackager(limits: Self.limits, runner: runner)
        let output = work.appendingPathComponent("hls")
        await #expect(throws: IngestError.self) {
            _ = try await packager.package(source, probed: probed, into: output) { _ in }
        }
        let shown = packager.ladderArguments(source: source, probed: probed, into: output)
        #expect(runner.runs.first?.tool == "ffmpeg")
        #expect(runner.runs.first?.arguments == shown)
        #expect(shown.contains("file:" + source.path))
    }

    @Test("progress lines split across chunks are read whole")
    func progressReader() {
        let log = Mutex<[Int64]>([])
        let reader = ProgressReader { value in log.withLock { $0.append(value) } }
        reader.consume(Data("frame=3\nout_time_us=N/A\nout_ti".utf8))
        reader.consume(Data("me_us=1500000\nprogress=continue\nout_time_us=20".utf8))
        reader.consume(Data("00000\nprogress=end\n".utf8))
        #expect(log.withLock { $0 } == [1_500_000, 2_000_000])
    }

    struct MediaPlaylist {
        var directory: URL
        var initSegment: String
        var segments: [String]
        var durations: [Double]
    }

    static func mediaPlaylist(_ url: URL) throws -> MediaPlaylist {
        let text = try String(contentsOf: url, encoding: .utf8)
        var playlist = MediaPlaylist(directory: url.deletingLastPathComponent(), initSegment: "", segments: [], durations: [])
        for line in text.split(whereSeparator: \.isNewline).map(String.init) {
            if line.hasPrefix("#EXT-X-MAP:") {
                playlist.initSegment = MasterPlaylist.attributes(String(line.dropFirst("#EXT-X-MAP:".count)))["URI"] ?? ""
            } else if line.hasPrefix("#EXTINF:") {
                playlist.durations.append(Double(line.dropFirst("#EXTINF:".count).split(separator: ",")[0]) ?? -1)
            } else if !line.hasPrefix("#"), !line.isEmpty {
                playlist.segments.append(line)
            }
        }
        #expect(text.contains("#EXT-X-ENDLIST"))
        #expect(!playlist.initSegment.isEmpty)
        return playlist
    }

    /// Each segment, after the init segment, starts with a keyframe: a player can start or switch there.
    static func expectKeyframeAtEachSegmentStart(_ playlist: MediaPlaylist, work: URL) async throws {
        let initData = try Data(contentsOf: playlist.directory.appendingPathComponent(playlist.initSegment))
        for segment in playlist.segments {
            let joined = work.appendingPathComponent("joined-\(UUID().uuidString).mp4")
            try (initData + Data(contentsOf: playlist.directory.appendingPathComponent(segment))).write(to: joined)
            defer { try? FileManager.default.removeItem(at: joined) }
            let frames =
                try await VideoClips.probeJSON([
                    "-select_streams", "v:0", "-show_frames", "-show_entries", "frame=key_frame",
                    "-read_intervals", "%+#1", joined.path,
                ])["frames"] as? [[String: Any]]
            #expect(frames?.first?["key_frame"] as? Int == 1, "segment \(segment) does not start with a keyframe")
        }
    }
}

/// Records what it is asked to run and runs nothing: each run fails.
final class RecordingRunner: ToolRunner {
    private let recorded = Mutex<[(tool: String, arguments: [String])]>([])

    var runs: [(tool: String, arguments: [String])] { recorded.withLock { $0 } }

    func run(_ tool: String, _ arguments: [String], limits: ToolLimits) async throws -> ToolResult {
        recorded.withLock { $0.append((tool, arguments)) }
        return ToolResult(exitCode: 1, stdout: Data(), stderr: "not run", timedOut: false)
    }
}
