import Foundation
import PodiumMedia
import Testing

/// Radio tracks: sound files of every usual kind are packaged into ~6 s AAC segments in MPEG-TS;
/// anything else is refused by content with a clear reason.
@Suite("Audio packager", .timeLimit(.minutes(2)))
struct AudioPackagerTests {
    /// A tone of `seconds` in `file`, encoded by `codec` arguments.
    static func tone(_ seconds: Int, _ file: String, _ codec: [String], in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent(file)
        let result = try await SystemToolRunner().run(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)"]
                + codec + [output.path], limits: ToolLimits(timeout: .seconds(60)))
        guard result.succeeded else { throw VideoClips.ClipError(message: result.stderr) }
        return output
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("podium-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(arguments: [
        ("track.mp3", ["-c:a", "libmp3lame"]), ("track.m4a", ["-c:a", "aac"]), ("track.wav", []),
        ("track.ogg", ["-c:a", "libvorbis"]), ("track.flac", []),
    ])
    func aSoundFileBecomesSegmentsOfAboutSixSeconds(_ file: String, _ codec: [String]) async throws {
        let work = try Self.directory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = try await Self.tone(14, file, codec, in: work)
        let packager = AudioPackager()
        let duration = try await packager.check(source)
        #expect(abs(duration - 14) < 0.2)
        let segments = try await packager.package(source, duration: duration, into: work.appendingPathComponent("out")) {
            _, _ in
        }
        #expect(segments.count == 3)
        #expect(abs(segments.map(\.duration).reduce(0, +) - 14) < 0.2)
        #expect(segments.dropLast().allSatisfy { abs($0.duration - 6) < 0.2 })
        for segment in segments {
            let bytes = try Data(contentsOf: segment.file)
            #expect(bytes.first == 0x47)  // MPEG-TS sync byte
        }
    }

    @Test func aVideoATextFileAndAnEmptyFileAreRefusedWithAReason() async throws {
        let work = try Self.directory()
        defer { try? FileManager.default.removeItem(at: work) }
        let packager = AudioPackager()
        let video = try await VideoClips.make(VideoClips.mp4, in: work)
        await #expect(throws: IngestError.notAudio) { try await packager.check(video) }
        let text = work.appendingPathComponent("notes.mp3")
        try Data("not music at all, just words\n".utf8).write(to: text)
        let refusal = await #expect(throws: IngestError.self) { try await packager.check(text) }
        #expect(refusal?.code == "corrupt" || refusal?.code == "not_audio")
        let empty = work.appendingPathComponent("empty.wav")
        try Data().write(to: empty)
        await #expect(throws: IngestError.self) { try await packager.check(empty) }
        let pdf = work.appendingPathComponent("slides.mp3")
        try Data("%PDF-1.4\n".utf8).write(to: pdf)
        await #expect(throws: IngestError.notAudio) { try await packager.check(pdf) }
    }
}
