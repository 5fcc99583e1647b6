import Foundation
import Logging

/// Packages a probed clip for HTTP Live Streaming: fMP4 segments in a rendition ladder that never
/// goes above the source, an audio rendition, a master playlist, a poster, a thumbnail sprite
/// with its WebVTT track and a faststart MP4 of the middle rendition.
///
/// Every rendition has a keyframe at each segment boundary (forced, with scene-cut keyframes off
/// and a fixed GOP), so a player can switch renditions at any segment. The ladder is encoded in
/// one `ffmpeg` run that decodes the source once; the others (MP4, poster, sprite) are short.
public struct VideoPackager: Sendable {
    /// A rung of the ladder: its lines (the picture's short side: the height of a landscape
    /// picture, the width of a portrait one, so an upright phone clip is "1080p" as a wide one
    /// is) and its video bit rate.
    struct Rung: Equatable {
        var lines: Int
        var kilobits: Int
    }

    static let ladder = [
        Rung(lines: 1080, kilobits: 5000), Rung(lines: 720, kilobits: 2800),
        Rung(lines: 480, kilobits: 1400), Rung(lines: 360, kilobits: 800),
    ]
    /// The audio rendition's bit rate (AAC, stereo, 48 kHz).
    public static let audioKilobits = 128

    public let limits: VideoLimits
    private let runner: any ToolRunner
    private let logger: Logger

    public init(
        limits: VideoLimits = VideoLimits(), runner: any ToolRunner = SystemToolRunner(),
        logger: Logger = Logger(label: "podium.media.video")
    ) {
        self.limits = limits
        self.runner = runner
        self.logger = logger
    }

    /// The rungs for a source whose short side is `sourceLines` pixels: those not above it, or one
    /// at the source's own (even) size when it is smaller than the lowest rung.
    static func rungs(sourceLines: Int) -> [Rung] {
        let fitting = ladder.filter { $0.lines <= sourceLines }
        if !fitting.isEmpty { return fitting }
        let lines = max(2, sourceLines / 2 * 2)
        return [Rung(lines: lines, kilobits: max(200, ladder.last!.kilobits * lines / ladder.last!.lines))]
    }

    /// The rungs of a probed clip (by its size as shown).
    static func rungs(_ probed: ProbedMedia) -> [Rung] { rungs(sourceLines: min(probed.width, probed.height)) }

    /// The video renditions of the ladder of `probed` (none without a picture).
    public static func rungCount(_ probed: ProbedMedia) -> Int { probed.hasVideo ? rungs(probed).count : 0 }

    /// Whether `probed` is packaged in two steps, a first playable rendition
    /// (``packageFirstRendition(_:probed:into:loudness:progress:)``) before the whole ladder: a
    /// clip with a picture and more than one rung. Any other clip's ladder is its first rendition
    /// (one rung, or sound alone), packaged in one go.
    public static func packagesFirstRendition(_ probed: ProbedMedia) -> Bool { rungCount(probed) > 1 }

    /// Packages `source` into `directory` (created; the caller removes it).
    /// - Parameters:
    ///   - progress: told as the ladder is encoded (`packaging`, milliseconds of the clip done of
    ///     its length), then the extras (`finishing`, steps done of three); one call at a time.
    /// - Throws: ``IngestError`` (`corrupt` when the clip cannot be decoded, `timeout`,
    ///   `tool_missing`); `CancellationError` when cancelled (running tools are killed).
    ///   - loudness: what ``measureLoudness(_:probed:)`` found in the source: its sound is
    ///     normalised to ``VideoLimits/loudness`` with it (nil: left as it is).
    ///   - reusing: the ladder's lowest rung, packaged already as the clip's first rendition
    ///     (see ``isLadderRung(_:of:)``): listed in the master playlist and not encoded again.
    public func package(
        _ source: URL, probed: ProbedMedia, into directory: URL, loudness: LoudnessMeasurement? = nil,
        reusing lowest: PackagedRung? = nil, progress: @escaping @Sendable (IngestProgress) -> Void
    ) async throws -> PackagedVideo {
        try await withDeadline {
            try await self.packageWithoutDeadline(
                source, probed: probed, into: directory, loudness: loudness, reusing: lowest, progress: progress)
        }
    }

    /// A rung of the ladder packaged and stored already: the clip's first rendition when it was
    /// encoded as the ladder's lowest rung. The ladder lists it, makes its MP4 and thumbnails
    /// from it where they come from that rung, and does not encode it again.
    public struct PackagedRung: Sendable {
        /// Its variant as stored (its `playlist` a stored file's name, which the master names).
        public var variant: PackagedVideo.Variant
        /// A copy of its media playlist naming its files by paths ffmpeg can read.
        public var readablePlaylist: URL

        public init(variant: PackagedVideo.Variant, readablePlaylist: URL) {
            self.variant = variant
            self.readablePlaylist = readablePlaylist
        }
    }

    /// Whether a first rendition's video variant is the ladder's lowest rung of `probed` (so
    /// ``package(_:probed:into:loudness:reusing:progress:)`` may reuse it) rather than the upload's
    /// picture copied. Its size tells: a copy is made only of a 720p to 1080p upload, while the
    /// lowest rung of a ladder of more than one rung is 360p.
    public static func isLadderRung(_ variant: PackagedVideo.Variant, of probed: ProbedMedia) -> Bool {
        guard probed.hasVideo, packagesFirstRendition(probed), let width = variant.width, let height = variant.height,
            let lowest = rungs(probed).last
        else { return false }
        return min(width, height) == lowest.lines
    }

    /// Packages a first playable rendition of `source` into `directory` (created; the caller
    /// removes it), with the sound (normalised as the ladder's), its master playlist, and the
    /// poster, so a clip can be played (and its card show a picture) long before its whole ladder
    /// is packaged. The MP4 and the thumbnails come with the ladder.
    ///
    /// Its picture is, in the order tried:
    /// - the upload's own H.264 picture copied, not encoded (`-c:v copy`), when ``mayRemux(_:)``
    ///   says its codec, size, bit rate and turn allow it and its keyframes are at most
    ///   ``VideoLimits/remuxKeyframeSeconds`` apart (read with `ffprobe -skip_frame nokey`,
    ///   which decodes the keyframes alone). Its costs: segments cut at the upload's keyframes
    ///   (8.3 s apart in the benchmark's clip, so a seek on the stage decodes up to that much
    ///   more), the upload's bit rate (at most 1.6 times the ladder's top rung for its size:
    ///   5.5 Mbit/s for the benchmark's 1080p clip, against 0.8 for the 360p rung), and its files
    ///   are as large as the upload's picture and stay with the clip (a player that loaded them
    ///   keeps playing). What it saves: decoding the whole 1080p source once more, the bulk of
    ///   the encoded first rendition's time (in `Benchmarks/video-packaging.sh`, 75 s of CPU of
    ///   a 10-minute 1080p clip's decode alone, against about 8 s for the whole remux, most of
    ///   it the sound's encode), so such an upload plays in well under a minute;
    /// - else the ladder's lowest rung (360p: its size, bit rate, keyframes and scaler) with x264's
    ///   `superfast` preset, from the source decoded fast (without its loop filter, with the
    ///   decoder's shortcuts: decoding is the bulk of the time). Measured on a 1080p clip against
    ///   a lanczos-scaled reference: SSIM 0.9307 against 0.9315 with the ladder's `veryfast`, for
    ///   15 % less CPU; the `fast_bilinear` scaler once used here saved 13 % more but fell to
    ///   0.886, visibly softer and jagged. It is that rung for good: the ladder reuses it
    ///   (``package(_:probed:into:loudness:reusing:progress:)``), neither encoding it again
    ///   nor removing it. A copy of the upload's picture is no rung: once the ladder is stored it
    ///   leaves the master playlist and is removed when no player can still be reading it.
    /// - Parameter progress: told as it is packaged (`packaging`, milliseconds of the clip done
    ///   of its length); one call at a time.
    public func packageFirstRendition(
        _ source: URL, probed: ProbedMedia, into directory: URL, loudness: LoudnessMeasurement? = nil,
        progress: @escaping @Sendable (IngestProgress) -> Void
    ) async throws -> PackagedVideo {
        try await withDeadline {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let remux = try await self.remuxes(source, probed: probed)
            var packaged = try await self.encode(
                source, probed: probed, rungs: Array(Self.rungs(probed).suffix(1)), into: directory, loudness: loudness,
                stage: "packaging", first: remux ? .remux : .fastEncode, progress: progress)
            if probed.hasVideo {
                packaged.poster = try await self.poster(input: Self.input(source), probed: probed, directory: directory)
            }
            packaged.files = try Self.files(under: directory)
            return packaged
        }
    }

    /// How a first playable rendition's picture is made (nil: a rung of the ladder).
    enum FirstRendition {
        /// The upload's picture copied into the segments.
        case remux
        /// The lowest rung, from the source decoded for speed.
        case fastEncode
    }

    /// Whether what `ffprobe` said of `probed`'s picture lets it be copied into a first playable
    /// rendition (its keyframes still to be checked, see
    /// ``packageFirstRendition(_:probed:into:loudness:progress:)``): H.264 that every browser
    /// plays (8-bit 4:2:0, Baseline, Main or High profile), not turned, 720p to 1080p (a smaller
    /// upload's lowest rung is quickly encoded: its decode is cheap), at most 1.6 times the bit
    /// rate of the ladder's top rung for its size.
    public static func mayRemux(_ probed: ProbedMedia) -> Bool {
        guard probed.hasVideo, let video = probed.video, video.codec == "h264", video.rotation == 0,
            ["yuv420p", "yuvj420p"].contains(video.pixelFormat ?? ""),
            ["Baseline", "Constrained Baseline", "Main", "High"].contains(video.profile ?? ""),
            let bitRate = video.bitRate, bitRate > 0
        else { return false }
        let lines = min(probed.width, probed.height)
        guard (720...1080).contains(lines), let top = rungs(probed).first else { return false }
        return bitRate <= top.kilobits * 1000 * 8 / 5
    }

    /// Whether the first rendition copies `source`'s picture: ``mayRemux(_:)`` and its keyframes
    /// at most ``VideoLimits/remuxKeyframeSeconds`` apart, the last one as far from the end.
    private func remuxes(_ source: URL, probed: ProbedMedia) async throws -> Bool {
        guard limits.remuxKeyframeSeconds > 0, Self.mayRemux(probed) else { return false }
        let result: ToolResult
        do {
            result = try await runner.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-skip_frame", "nokey", "-show_entries",
                    "frame=pts_time,pkt_dts_time", "-of", "csv=p=0", Self.input(source),
                ], limits: limits.toolLimits(timeout: limits.probeTimeout, capturedOutput: 4 * 1024 * 1024))
        } catch let error as IngestError where error.code == "tool_missing" {
            throw IngestError.videoToolMissing(tool: "ffprobe")
        }
        guard result.succeeded, !result.timedOut,
            let gap = Self.longestKeyframeGap(String(decoding: result.stdout, as: UTF8.self), duration: probed.duration)
        else { return false }
        logger.debug("longest keyframe gap \(gap) s")
        return gap <= limits.remuxKeyframeSeconds
    }

    /// The longest time between keyframes in `ffprobe`'s CSV of keyframe times (`pts,dts` a
    /// line; either may be `N/A`), from the first to the clip's end; nil when none is read or
    /// the first is not near the start.
    static func longestKeyframeGap(_ csv: String, duration: Double) -> Double? {
        let times = csv.split(whereSeparator: \.isNewline).compactMap { line in
            line.split(separator: ",", omittingEmptySubsequences: false).lazy.compactMap {
                Double($0.trimmingCharacters(in: .whitespaces))
            }.first { $0.isFinite }
        }.sorted()
        guard let first = times.first, first < 0.5 else { return nil }
        var longest = max(0, duration - times[times.count - 1])
        for (earlier, later) in zip(times, times.dropFirst()) { longest = max(longest, later - earlier) }
        return longest
    }

    /// Runs `work` under the packaging deadline (``VideoLimits/packagingTimeout``).
    private func withDeadline(_ work: @escaping @Sendable () async throws -> PackagedVideo) async throws -> PackagedVideo {
        let deadline = limits.packagingTimeout
        return try await withThrowingTaskGroup(of: PackagedVideo?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let packaged = first else {
                throw IngestError.packagingTimeout(deadline)
            }
            return packaged
        }
    }

    private func packageWithoutDeadline(
        _ source: URL, probed: ProbedMedia, into directory: URL, loudness: LoudnessMeasurement?,
        reusing lowest: PackagedRung?, progress: @escaping @Sendable (IngestProgress) -> Void
    ) async throws -> PackagedVideo {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let input = Self.input(source)
        let all = Self.rungs(probed)
        let reused = probed.hasVideo && all.count > 1 ? lowest : nil
        let encoded = reused == nil ? all : Array(all.dropLast())
        var packaged = try await encode(
            source, probed: probed, rungs: encoded, into: directory, loudness: loudness, stage: "packaging",
            progress: progress)
        if let reused { try list(reused, in: &packaged) }
        if probed.hasVideo {
            // A rung's playlist: an encoded one's in `directory`, the reused lowest one's copy.
            let playlist = { (index: Int) -> URL in
                if let reused, index == all.count - 1 { return reused.readablePlaylist }
                return directory.appendingPathComponent("stream_\(index)/index.m3u8")
            }
            let sound = probed.hasAudio ? directory.appendingPathComponent("stream_\(encoded.count)/index.m3u8") : nil
            progress(IngestProgress(stage: "finishing", done: 0, total: 3))
            packaged.mp4 = try await middleMP4(video: playlist(all.count / 2), sound: sound, directory: directory)
            progress(IngestProgress(stage: "finishing", done: 1, total: 3))
            packaged.poster = try await poster(input: input, probed: probed, directory: directory)
            progress(IngestProgress(stage: "finishing", done: 2, total: 3))
            (packaged.thumbnailSprite, packaged.thumbnailTrack) = try await thumbnails(
                probed: probed, lowest: playlist(all.count - 1), directory: directory)
            progress(IngestProgress(stage: "finishing", done: 3, total: 3))
        }
        packaged.files = try Self.files(under: directory)
        return packaged
    }

    /// Adds the reused rung to the master playlist `packaged` has (after the encoded rungs:
    /// the lowest last), with the encoded rungs' sound, and to its variants.
    private func list(_ reused: PackagedRung, in packaged: inout PackagedVideo) throws {
        let masterURL = packaged.directory.appendingPathComponent(packaged.masterPlaylist)
        let master = MasterPlaylist.withVariant(
            try String(contentsOf: masterURL, encoding: .utf8), reused.variant, uri: PackagedVideo.reusedRungPath)
        try master.write(to: masterURL, atomically: true, encoding: .utf8)
        packaged.variants = MasterPlaylist.variants(master)
        packaged.stored[PackagedVideo.reusedRungPath] = reused.variant.playlist
    }

    /// Encodes `rungs` (and the sound) of `source` in one ffmpeg run into `directory`, reporting
    /// `stage` in milliseconds of the clip; the master playlist tidied and read.
    private func encode(
        _ source: URL, probed: ProbedMedia, rungs: [Rung], into directory: URL, loudness: LoudnessMeasurement?,
        stage: String, first: FirstRendition? = nil, progress: @escaping @Sendable (IngestProgress) -> Void
    ) async throws -> PackagedVideo {
        let totalMilliseconds = max(1, Int(probed.duration * 1000))
        progress(IngestProgress(stage: stage, done: 0, total: totalMilliseconds))
        let reader = ProgressReader { microseconds in
            let done = min(totalMilliseconds, Int(microseconds / 1000))
            progress(IngestProgress(stage: stage, done: done, total: totalMilliseconds))
        }
        try await ffmpeg(
            arguments(source: source, probed: probed, rungs: rungs, into: directory, loudness: loudness, first: first),
            step: "its streams could not be decoded",
            onStdout: { reader.consume($0) })
        progress(IngestProgress(stage: stage, done: totalMilliseconds, total: totalMilliseconds))

        let master = "master.m3u8"
        let masterURL = directory.appendingPathComponent(master)
        let written = try String(contentsOf: masterURL, encoding: .utf8)
        var tidied = MasterPlaylist.withoutAudioOnlyVariants(written)
        // FFmpeg names no codecs for a copied picture; players choose by them (Safari above all).
        if first == .remux, let codecs = Self.codecs(probed) { tidied = MasterPlaylist.withCodecs(tidied, codecs) }
        if tidied != written { try tidied.write(to: masterURL, atomically: true, encoding: .utf8) }
        let variants = MasterPlaylist.variants(tidied)
        guard !variants.isEmpty else { throw IngestError.corruptVideo(detail: "no stream could be packaged") }
        return PackagedVideo(
            directory: directory, masterPlaylist: master, variants: variants, poster: nil, thumbnailSprite: nil,
            thumbnailTrack: nil, mp4: nil, files: [], loudness: loudness)
    }

    /// The `ffmpeg` arguments of the first playable rendition's run (see
    /// ``packageFirstRendition(_:probed:into:loudness:progress:)``): the lowest rung and the sound.
    /// `remux`: the upload's picture copied (when ``mayRemux(_:)`` and its keyframes allow it).
    public func firstRenditionArguments(
        source: URL, probed: ProbedMedia, into directory: URL, loudness: LoudnessMeasurement? = nil, remux: Bool = false
    ) -> [String] {
        arguments(
            source: source, probed: probed, rungs: Array(Self.rungs(probed).suffix(1)), into: directory, loudness: loudness,
            first: remux ? .remux : .fastEncode)
    }

    /// The `CODECS` of a copied H.264 picture (with AAC sound when it has some): `avc1.` and
    /// its profile, constraints and level in hex, as an encoder's playlist names them.
    static func codecs(_ probed: ProbedMedia) -> String? {
        guard let video = probed.video, video.codec == "h264", let level = video.level, level > 0 else { return nil }
        let profile: String
        switch video.profile {
        case "Constrained Baseline": profile = "42E0"
        case "Baseline": profile = "4200"
        case "Main": profile = "4D40"
        case "High": profile = "6400"
        default: return nil
        }
        let avc = "avc1." + profile + String(format: "%02X", level)
        return probed.hasAudio ? avc + ",mp4a.40.2" : avc
    }

    /// The `ffmpeg` arguments (the program's name left out) of the one run that encodes every
    /// rendition of `source` and writes the playlists into `directory` (ffmpeg makes the folders
    /// it names). Public so that a benchmark runs exactly the command packaging runs, not a copy
    /// that drifts from it.
    /// With `loudness` (the source's, measured by ``measureLoudness(_:probed:)``) and a target
    /// in ``VideoLimits/loudness``, the audio is normalised to it.
    public func ladderArguments(
        source: URL, probed: ProbedMedia, into directory: URL, loudness: LoudnessMeasurement? = nil
    ) -> [String] {
        arguments(source: source, probed: probed, rungs: Self.rungs(probed), into: directory, loudness: loudness)
    }

    private func arguments(
        source: URL, probed: ProbedMedia, rungs: [Rung], into directory: URL, loudness: LoudnessMeasurement?,
        first: FirstRendition? = nil
    ) -> [String] {
        let segment = limits.segmentSeconds
        // A fast first rendition's decode: no loop filter (its blocking is lost in the scaling
        // down to 360p) and the decoder's shortcuts.
        let fastDecode = first == .fastEncode && probed.hasVideo ? ["-skip_loop_filter", "all", "-flags2", "+fast"] : []
        var arguments =
            ["-nostdin", "-v", "error", "-y"] + fastDecode + [
                "-i", Self.input(source), "-progress", "pipe:1", "-nostats", "-map_metadata", "-1",
            ]
        var streamMap: [String] = []
        let audioGroup = probed.hasAudio && probed.hasVideo ? ",agroup:audio" : ""
        if probed.hasVideo, first == .remux {
            // The upload's picture as it is: segments cut at its keyframes, the first at or after
            // each segment's length (see packageFirstRendition).
            arguments += ["-map", "0:v:0", "-c:v", "copy"]
            streamMap.append("v:0\(audioGroup)")
        } else if probed.hasVideo {
            let portrait = probed.width < probed.height
            let labels = rungs.indices.map { "s\($0)" }
            var graph = rungs.count == 1 ? "[0:v:0]null[s0]" : "[0:v:0]split=\(rungs.count)" + labels.map { "[\($0)]" }.joined()
            for (index, rung) in rungs.enumerated() {
                let size = portrait ? "\(rung.lines):-2" : "-2:\(rung.lines)"
                graph += ";[s\(index)]scale=\(size),format=yuv420p[v\(index)]"
            }
            arguments += ["-filter_complex", graph]
            for index in rungs.indices { arguments += ["-map", "[v\(index)]"] }
            // A keyframe at every segment boundary and nowhere else: a fixed GOP of one segment.
            let gop = max(1, Int((probed.frameRate * Double(segment)).rounded()))
            arguments += [
                // The fast first rendition is the ladder's lowest rung for good: x264's `superfast`
                // makes it as good for 15 % less CPU than `veryfast` (see packageFirstRendition).
                "-c:v", "libx264", "-preset", first == .fastEncode ? "superfast" : "veryfast", "-profile:v", "high",
                "-sc_threshold", "0",
                "-g", String(gop), "-keyint_min", String(gop),
                "-force_key_frames", "expr:gte(t,n_forced*\(segment))",
            ]
            for (index, rung) in rungs.enumerated() {
                arguments += [
                    "-b:v:\(index)", "\(rung.kilobits)k", "-maxrate:v:\(index)", "\(rung.kilobits * 107 / 100)k",
                    "-bufsize:v:\(index)", "\(rung.kilobits * 3 / 2)k",
                ]
                streamMap.append("v:\(index)\(audioGroup)")
            }
        }
        if probed.hasAudio {
            arguments += ["-map", "0:a:0"]
            if let loudness, let target = limits.loudness {
                // A first rendition's sound: the linear gain alone (LoudnessTarget.gainFilter).
                let filter = first == nil ? target.normalisingFilter(loudness) : target.gainFilter(loudness)
                arguments += ["-filter:a", filter]
            }
            arguments += ["-c:a", "aac", "-b:a", "\(Self.audioKilobits)k", "-ac", "2", "-ar", "48000"]
            // A first rendition's AAC: the encoder's fast search, a third of its default's CPU.
            if first != nil { arguments += ["-aac_coder", "fast"] }
            streamMap.append("a:0\(audioGroup)")
        }
        arguments += [
            "-threads", String(limits.threads),
            "-f", "hls", "-hls_time", String(segment), "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
            "-hls_flags", "independent_segments", "-hls_fmp4_init_filename", "init.mp4",
            "-hls_segment_filename", directory.appendingPathComponent("stream_%v/segment_%05d.m4s").path,
            "-master_pl_name", "master.m3u8", "-var_stream_map", streamMap.joined(separator: " "),
            directory.appendingPathComponent("stream_%v/index.m3u8").path,
        ]
        return arguments
    }

    /// Loudnorm's first pass over the source's sound (EBU R128): what ``package(_:probed:into:loudness:progress:)``
    /// normalises its audio with. Nil without sound, without a target, or for silence (nothing
    /// to normalise); a clip whose sound cannot be decoded fails here as `corrupt`. One decode of
    /// the sound alone, under the packaging deadline's limits.
    public func measureLoudness(_ source: URL, probed: ProbedMedia) async throws -> LoudnessMeasurement? {
        guard probed.hasAudio, let target = limits.loudness else { return nil }
        let arguments = [
            "-nostdin", "-hide_banner", "-nostats", "-v", "info", "-i", Self.input(source), "-map", "0:a:0", "-vn", "-sn", "-dn",
            "-af", target.measuringFilter, "-f", "null", "-",
        ]
        let result = try await ffmpeg(arguments, step: "its sound could not be measured")
        let measured = LoudnessMeasurement.parse(result.stderr)
        if measured == nil { logger.notice("loudnorm measured nothing", metadata: ["stderr": "\(result.stderr.suffix(400))"]) }
        return measured
    }

    /// `source` as ffmpeg's input: with `file:`, a name with a colon is never taken for a protocol.
    static func input(_ source: URL) -> String { "file:" + source.path }

    /// The middle video rendition (`video`, its media playlist) and the audio (`sound`), copied
    /// (not encoded again) into one faststart MP4.
    private func middleMP4(video: URL, sound: URL?, directory: URL) async throws -> String {
        var arguments = ["-nostdin", "-v", "error", "-y", "-i", video.path]
        if let sound { arguments += ["-i", sound.path] }
        arguments += ["-map", "0:v:0"]
        if sound != nil { arguments += ["-map", "1:a:0"] }
        let name = "video.mp4"
        arguments += ["-c", "copy", "-movflags", "+faststart", directory.appendingPathComponent(name).path]
        try await ffmpeg(arguments, step: "its MP4 copy could not be written")
        return name
    }

    /// A frame a tenth of the way in (past any black lead-in), at most 720 pixels tall.
    private func poster(input: String, probed: ProbedMedia, directory: URL) async throws -> String {
        let name = "poster.jpg"
        let at = String(format: "%.3f", probed.duration / 10)
        try await ffmpeg(
            [
                "-nostdin", "-v", "error", "-y", "-ss", at, "-i", input, "-frames:v", "1",
                "-vf", "scale=-2:'min(720,ih)',format=yuvj420p", "-q:v", "3", directory.appendingPathComponent(name).path,
            ], step: "its poster frame could not be made")
        return name
    }

    /// The sprite, from the lowest rendition rather than the source: its tiles are 160 pixels wide
    /// either way, and decoding a 1080p source once more took about 8 % of the ladder's CPU time.
    private func thumbnails(probed: ProbedMedia, lowest: URL, directory: URL) async throws -> (String, String) {
        let input = lowest.path
        let track = ThumbnailTrack(duration: probed.duration, width: probed.width, height: probed.height)
        let sprite = "thumbnails.jpg"
        try await ffmpeg(
            [
                "-nostdin", "-v", "error", "-y", "-i", input, "-an", "-vf", track.filter + ",format=yuvj420p",
                "-frames:v", "1", "-q:v", "5", "-threads", String(limits.threads),
                directory.appendingPathComponent(sprite).path,
            ], step: "its thumbnails could not be made")
        let vtt = "thumbnails.vtt"
        try Data(track.webVTT(sprite: sprite, duration: probed.duration).utf8)
            .write(to: directory.appendingPathComponent(vtt))
        return (sprite, vtt)
    }

    /// Runs ffmpeg; a failure becomes `corrupt` naming `step` (its standard error is logged).
    @discardableResult
    private func ffmpeg(
        _ arguments: [String], step: String, onStdout: (@Sendable (Data) -> Void)? = nil
    ) async throws -> ToolResult {
        let toolLimits = limits.toolLimits(timeout: limits.packagingTimeout, capturedOutput: 64 * 1024)
        let result: ToolResult
        do {
            if let onStdout {
                result = try await runner.run("ffmpeg", arguments, limits: toolLimits, onStdout: onStdout)
            } else {
                result = try await runner.run("ffmpeg", arguments, limits: toolLimits)
            }
        } catch let error as IngestError where error.code == "tool_missing" {
            throw IngestError.videoToolMissing(tool: "ffmpeg")
        }
        if result.timedOut { throw IngestError.packagingTimeout(limits.packagingTimeout) }
        guard result.succeeded else {
            logger.notice(
                "ffmpeg failed", metadata: ["exit": "\(result.exitCode)", "stderr": "\(result.stderr.suffix(800))"])
            throw IngestError.corruptVideo(detail: step)
        }
        return result
    }

    /// Every regular file under `directory`, relative to it, sorted.
    static func files(under directory: URL) throws -> [String] {
        let base = directory.standardizedFileURL.resolvingSymlinksInPath().path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [] }
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files.sorted()
    }
}
