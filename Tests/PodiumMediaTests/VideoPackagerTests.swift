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

    @Test("a 720p H.264 upload with keyframes a second apart plays first from its own picture, copied")
    func firstRenditionRemuxed() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = VideoClips.Clip(
            name: "MP4 720p, a keyframe a second",
            encode: [
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-b:v", "1500k", "-pix_fmt", "yuv420p", "-c:a", "aac",
            ],
            fileName: "keyframes.mp4", width: 1280, height: 720, seconds: 3, hasVideo: true, hasAudio: true)
        let source = try await VideoClips.make(clip, in: work)
        let probed = try await VideoProbe(limits: Self.limits).probe(source)
        #expect(probed.video?.codec == "h264" && probed.video?.pixelFormat == "yuv420p", "\(probed)")
        #expect(VideoPackager.mayRemux(probed), "\(probed)")
        let runner = RecordingRunner(passingThrough: true)
        let output = work.appendingPathComponent("first")
        let packaged = try await VideoPackager(limits: Self.limits, runner: runner).packageFirstRendition(
            source, probed: probed, into: output
        ) { _ in }
        // The upload's own 720p picture, not a 360p encode: copied, and named for players.
        #expect(packaged.variants.compactMap(\.height) == [720])
        let codecs = try #require(packaged.variants.first?.codecs)
        #expect(codecs.hasPrefix("avc1.42E0") || codecs.hasPrefix("avc1.4D40") || codecs.hasPrefix("avc1.6400"), "\(codecs)")
        #expect(codecs.hasSuffix(",mp4a.40.2"))
        #expect(!VideoPackager.isLadderRung(try #require(packaged.variants.first), of: probed), "a copy is no rung")
        let encodes = runner.runs.filter { $0.tool == "ffmpeg" && $0.arguments.contains("pipe:1") }
        #expect(encodes.count == 1 && encodes[0].arguments.contains("copy") && !encodes[0].arguments.contains("libx264"))
        let playlist = try Self.mediaPlaylist(output.appendingPathComponent(try #require(packaged.variants.first).playlist))
        #expect(abs(playlist.durations.reduce(0, +) - 3) < 0.1, "\(playlist.durations)")
        try await Self.expectKeyframeAtEachSegmentStart(playlist, work: work)
        #expect(packaged.poster != nil)
    }

    @Test("an upload whose keyframes are too far apart has its first rendition encoded at 360p, as the ladder's rung")
    func firstRenditionEncodedWhenKeyframesAreSparse() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // x264's own keyframe interval (250 frames), so one keyframe in its 4 s; the limit brought
        // down to 2 s so the clip stays short. A bit rate that alone would allow a copy.
        let clip = VideoClips.Clip(
            name: "MP4 720p, one keyframe",
            encode: ["-c:v", "libx264", "-preset", "ultrafast", "-b:v", "1500k", "-pix_fmt", "yuv420p", "-c:a", "aac"],
            fileName: "sparse.mp4", width: 1280, height: 720, seconds: 4, hasVideo: true, hasAudio: true)
        let source = try await VideoClips.make(clip, in: work)
        var limits = Self.limits
        limits.remuxKeyframeSeconds = 2
        let probed = try await VideoProbe(limits: limits).probe(source)
        #expect(VideoPackager.mayRemux(probed), "its codec and size alone would allow it: \(probed)")
        let runner = RecordingRunner(passingThrough: true)
        let packaged = try await VideoPackager(limits: limits, runner: runner).packageFirstRendition(
            source, probed: probed, into: work.appendingPathComponent("first")
        ) { _ in }
        #expect(packaged.variants.compactMap(\.height) == [360])
        let encode = try #require(runner.runs.first { $0.tool == "ffmpeg" && $0.arguments.contains("pipe:1") })
        // The ladder's own rung for good (it is not encoded again): the ladder's scaler, from the
        // source decoded fast, x264's superfast preset.
        #expect(encode.arguments.contains("superfast") && encode.arguments.contains("-skip_loop_filter"))
        #expect(!encode.arguments.joined(separator: " ").contains("fast_bilinear"))
        #expect(VideoPackager.isLadderRung(try #require(packaged.variants.first), of: probed))
    }

    @Test("which uploads may be copied into a first rendition, and the keyframe gaps read")
    func remuxRules() {
        func probed(
            width: Int = 1920, height: Int = 1080, codec: String = "h264", profile: String = "High",
            pixelFormat: String = "yuv420p", kilobits: Int? = 5500, rotation: Int = 0
        ) -> ProbedMedia {
            ProbedMedia(
                container: "mov,mp4,m4a,3gp,3g2,mj2", duration: 600, width: width, height: height, frameRate: 30,
                hasVideo: true, hasAudio: true,
                video: VideoStreamInfo(
                    codec: codec, profile: profile, level: 40, pixelFormat: pixelFormat, bitRate: kilobits.map { $0 * 1000 },
                    rotation: rotation))
        }
        #expect(VideoPackager.mayRemux(probed()))
        #expect(VideoPackager.mayRemux(probed(width: 1280, height: 720, kilobits: 4400)))
        #expect(!VideoPackager.mayRemux(probed(width: 1280, height: 720, kilobits: 4600)), "over 1.6x the 720p rung")
        #expect(!VideoPackager.mayRemux(probed(kilobits: 17_000)), "a phone's 1080p bit rate")
        #expect(!VideoPackager.mayRemux(probed(kilobits: nil)), "an unknown bit rate")
        #expect(!VideoPackager.mayRemux(probed(width: 3840, height: 2160)), "above 1080p")
        #expect(!VideoPackager.mayRemux(probed(width: 854, height: 480)), "a small upload is encoded, cheaply")
        #expect(!VideoPackager.mayRemux(probed(codec: "hevc", profile: "Main")))
        #expect(!VideoPackager.mayRemux(probed(profile: "High 10", pixelFormat: "yuv420p10le")))
        #expect(!VideoPackager.mayRemux(probed(pixelFormat: "yuv422p")))
        #expect(!VideoPackager.mayRemux(probed(width: 1080, height: 1920, rotation: 90)), "a turned picture")
        #expect(VideoPackager.mayRemux(probed(width: 1080, height: 1920)), "stored upright")
        #expect(VideoPackager.codecs(probed()) == "avc1.640028,mp4a.40.2")
        #expect(VideoPackager.codecs(probed(profile: "Constrained Baseline")) == "avc1.42E028,mp4a.40.2")

        #expect(
            abs((VideoPackager.longestKeyframeGap("0.000000,\n8.333333,\n16.666667,\n", duration: 20) ?? 0) - 8.333333) < 1e-5)
        #expect(VideoPackager.longestKeyframeGap("0.000000,\n8.333333,\n", duration: 20) == 20 - 8.333333, "to the end")
        #expect(VideoPackager.longestKeyframeGap("N/A,0.04\nN/A,2.04\n", duration: 3) == 2)
        #expect(VideoPackager.longestKeyframeGap("", duration: 3) == nil)
        #expect(VideoPackager.longestKeyframeGap("4.0,\n", duration: 6) == nil, "no keyframe at the start")
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
    /// Whether the tools really run (by ``SystemToolRunner``); else every run fails at once.
    let passingThrough: Bool

    init(passingThrough: Bool = false) { self.passingThrough = passingThrough }

    var runs: [(tool: String, arguments: [String])] { recorded.withLock { $0 } }

    func run(_ tool: String, _ arguments: [String], limits: ToolLimits) async throws -> ToolResult {
        recorded.withLock { $0.append((tool, arguments)) }
        if passingThrough { return try await SystemToolRunner().run(tool, arguments, limits: limits) }
        return ToolResult(exitCode: 1, stdout: Data(), stderr: "not run", timedOut: false)
    }
}
