import Foundation
import Testing

@testable import PodiumMedia

/// Loudness normalisation at packaging (issue #41): loudnorm's first pass is read from its JSON,
/// and a quiet and a loud clip both come out at the target.
@Suite("Loudness", .timeLimit(.minutes(2)))
struct LoudnessTests {
    /// What ffmpeg 5.1 writes on standard error for `-af loudnorm=…:print_format=json`.
    static let output = """
        Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'file:/tmp/clip.m4a':
          Duration: 00:00:05.02, start: 0.000000, bitrate: 131 kb/s
          Stream #0:0[0x1](und): Audio: aac (LC) (mp4a / 0x6134706D), 48000 Hz, mono, fltp, 129 kb/s (default)
        Output #0, null, to 'pipe:':
        [Parsed_loudnorm_0 @ 0x55d0c3a2c240]\u{20}
        {
        \t"input_i" : "-37.71",
        \t"input_tp" : "-33.98",
        \t"input_lra" : "0.00",
        \t"input_thresh" : "-47.71",
        \t"output_i" : "-16.47",
        \t"output_tp" : "-12.65",
        \t"output_lra" : "0.00",
        \t"output_thresh" : "-26.47",
        \t"normalization_type" : "linear",
        \t"target_offset" : "0.47"
        }
        """

    @Test func theFirstPassIsReadFromItsJSON() {
        let measured = LoudnessMeasurement.parse(Self.output)
        #expect(
            measured
                == LoudnessMeasurement(
                    inputIntegrated: -37.71, inputTruePeak: -33.98, inputRange: 0, inputThreshold: -47.71, targetOffset: 0.47))
        // Silence measures -inf: nothing to normalise.
        #expect(LoudnessMeasurement.parse(Self.output.replacingOccurrences(of: "\"-37.71\"", with: "\"-inf\"")) == nil)
        #expect(LoudnessMeasurement.parse("Output #0, null, to 'pipe:':\n") == nil)
        #expect(LoudnessMeasurement.parse("{ \"input_i\" : \"-20\" }") == nil)
    }

    @Test func theSecondPassNormalisesWithWhatTheFirstMeasured() throws {
        let target = LoudnessTarget()
        #expect(target.measuringFilter == "loudnorm=I=-16.00:TP=-1.50:LRA=11.00:print_format=json")
        let measured = try #require(LoudnessMeasurement.parse(Self.output))
        #expect(
            target.normalisingFilter(measured)
                == "loudnorm=I=-16.00:TP=-1.50:LRA=11.00:measured_I=-37.71:measured_TP=-33.98:measured_LRA=0.00"
                + ":measured_thresh=-47.71:offset=0.47:linear=true:print_format=none")
        // A first rendition's: the same linear gain as a plain volume, lowered under the true peak.
        #expect(target.gainFilter(measured) == "volume=21.71dB")
        var loud = measured
        loud.inputIntegrated = -20
        loud.inputTruePeak = -0.5
        #expect(target.gainFilter(loud) == "volume=-1.00dB", "4 dB up would put the peak over -1.5 dBTP")
        // Out of loudnorm's ranges: brought inside them.
        #expect(LoudnessTarget(integrated: -99, truePeak: 3, range: 0) == LoudnessTarget(integrated: -70, truePeak: 0, range: 1))
    }

    /// A tone (the sine source is at 1/8 of full scale) at `volume` times that, 5 s long, as AAC.
    static func tone(volume: Double, in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("tone-\(volume).m4a")
        let result = try await SystemToolRunner().run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=5",
                "-af", "volume=\(volume)", "-c:a", "aac", "-b:a", "128k", output.path,
            ], limits: ToolLimits(timeout: .seconds(60)))
        guard result.succeeded else { throw VideoClips.ClipError(message: result.stderr) }
        return output
    }

    @Test func aQuietAndALoudClipArePackagedAtTheTarget() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let limits = VideoLimits(segmentSeconds: 1)
        let packager = VideoPackager(limits: limits)
        let probe = VideoProbe(limits: limits)
        var measuredInputs: [Double] = []
        for volume in [0.2, 6.0] {
            let source = try await Self.tone(volume: volume, in: work)
            let probed = try await probe.probe(source)
            let loudness = try #require(try await packager.measureLoudness(source, probed: probed))
            measuredInputs.append(loudness.inputIntegrated)
            let output = work.appendingPathComponent("hls-\(volume)")
            let packaged = try await packager.package(source, probed: probed, into: output, loudness: loudness) { _ in }
            #expect(packaged.loudness == loudness)
            // The packaged sound, measured the same way: at the target, whichever the upload was.
            let rendition = output.appendingPathComponent(try #require(packaged.variants.first).playlist)
            let result = try #require(try await packager.measureLoudness(rendition, probed: probed))
            #expect(abs(result.inputIntegrated - (-16)) <= 1.5, "tone at \(volume): \(result.inputIntegrated) LUFS packaged")
        }
        // The two uploads were far apart (about 32 LU).
        #expect(measuredInputs[1] - measuredInputs[0] > 25, "\(measuredInputs)")
        // Without a target nothing is measured (and so nothing normalised).
        var untouched = limits
        untouched.loudness = nil
        let source = try await Self.tone(volume: 6.0, in: work)
        #expect(try await VideoPackager(limits: untouched).measureLoudness(source, probed: try await probe.probe(source)) == nil)
    }

    @Test func aFirstRenditionsSoundIsAtTheTargetToo() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let limits = VideoLimits(segmentSeconds: 1)
        let packager = VideoPackager(limits: limits)
        // A quiet tone under a 640x480 picture: two rungs, so a first rendition (encoded).
        let source = work.appendingPathComponent("quiet.mp4")
        let made = try await SystemToolRunner().run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25:duration=5", "-f", "lavfi",
                "-i", "sine=frequency=440:sample_rate=48000:duration=5", "-af", "volume=0.2", "-c:v", "libx264", "-preset",
                "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", source.path,
            ], limits: ToolLimits(timeout: .seconds(60)))
        #expect(made.succeeded, "\(made.stderr)")
        let probed = try await VideoProbe(limits: limits).probe(source)
        #expect(VideoPackager.packagesFirstRendition(probed))
        let loudness = try #require(try await packager.measureLoudness(source, probed: probed))
        #expect(loudness.inputIntegrated < -30, "\(loudness)")
        let output = work.appendingPathComponent("first")
        let packaged = try await packager.packageFirstRendition(source, probed: probed, into: output, loudness: loudness) { _ in }
        #expect(packaged.variants.compactMap(\.height) == [360])
        // Its sound is the stream after the picture's (var_stream_map: v:0, then a:0).
        let sound = output.appendingPathComponent("stream_1/index.m3u8")
        let result = try #require(try await packager.measureLoudness(sound, probed: probed))
        #expect(abs(result.inputIntegrated - (-16)) <= 1.5, "first rendition: \(result.inputIntegrated) LUFS")
    }
}
