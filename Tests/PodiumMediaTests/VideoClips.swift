import Foundation
import PodiumMedia
import Testing

/// Real clips for the video tests, made by `ffmpeg` from its test sources (`testsrc2` pictures,
/// `sine` audio): short and small, so the suite stays fast.
enum VideoClips {
    struct Clip: Sendable, CustomTestStringConvertible {
        var name: String
        /// The `ffmpeg` output arguments after the lavfi inputs (codecs), and the file name.
        var encode: [String]
        var fileName: String
        var width: Int
        var height: Int
        var seconds: Int
        var hasVideo: Bool
        var hasAudio: Bool

        var testDescription: String { name }
    }

    static let mp4 = Clip(
        name: "MP4 H.264 + AAC", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"],
        fileName: "clip.mp4", width: 320, height: 240, seconds: 2, hasVideo: true, hasAudio: true)
    static let webm = Clip(
        name: "WebM VP9 + Opus",
        encode: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k", "-c:a", "libopus"],
        fileName: "clip.webm", width: 320, height: 240, seconds: 2, hasVideo: true, hasAudio: true)
    static let mkv = Clip(
        name: "MKV H.264 + Vorbis", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libvorbis"],
        fileName: "clip.mkv", width: 320, height: 240, seconds: 2, hasVideo: true, hasAudio: true)
    static let mov = Clip(
        name: "MOV MPEG-4 + AAC, no audio", encode: ["-c:v", "mpeg4", "-an"],
        fileName: "clip.mov", width: 320, height: 240, seconds: 2, hasVideo: true, hasAudio: false)
    static let m4a = Clip(
        name: "M4A AAC audio only", encode: ["-vn", "-c:a", "aac"],
        fileName: "clip.m4a", width: 0, height: 0, seconds: 2, hasVideo: false, hasAudio: true)
    static let ogg = Clip(
        name: "OGG Vorbis audio only", encode: ["-vn", "-c:a", "libvorbis"],
        fileName: "clip.ogg", width: 0, height: 0, seconds: 2, hasVideo: false, hasAudio: true)
    static let hd = Clip(
        name: "MP4 720p", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"],
        fileName: "hd.mp4", width: 1280, height: 720, seconds: 4, hasVideo: true, hasAudio: true)

    /// Stored landscape: ``rotated(_:degrees:in:)`` makes it a phone's portrait clip.
    static let landscape = Clip(
        name: "MP4 640x360", encode: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"],
        fileName: "landscape.mp4", width: 640, height: 360, seconds: 2, hasVideo: true, hasAudio: true)

    static let containers = [mp4, webm, mkv, mov, m4a, ogg]

    /// Makes `clip` in `directory` and returns its file.
    static func make(_ clip: Clip, in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent(clip.fileName)
        let arguments =
            [
                "-nostdin", "-v", "error", "-y",
                "-f", "lavfi", "-i",
                "testsrc2=size=\(max(2, clip.width))x\(max(2, clip.height)):rate=25:duration=\(clip.seconds)",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(clip.seconds)",
            ] + clip.encode + ["-t", String(clip.seconds), output.path]
        let result = try await SystemToolRunner().run("ffmpeg", arguments, limits: ToolLimits(timeout: .seconds(60)))
        guard result.succeeded else { throw ClipError(message: "ffmpeg could not make \(clip.name): \(result.stderr)") }
        return output
    }

    /// `file` copied, not encoded again, with its video turned `degrees` when shown, as a phone
    /// records a clip held upright: the stored picture is unchanged, its display matrix says to
    /// turn it (ffmpeg 5.1 writes the `rotate` metadata of an MP4 as the display matrix).
    static func rotated(_ file: URL, degrees: Int, in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("rotated-" + file.lastPathComponent)
        let result = try await SystemToolRunner().run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", file.path, "-map", "0", "-c", "copy",
                "-metadata:s:v:0", "rotate=\(degrees)", output.path,
            ],
            limits: ToolLimits(timeout: .seconds(60)))
        guard result.succeeded else {
            throw ClipError(message: "ffmpeg could not turn \(file.lastPathComponent): \(result.stderr)")
        }
        return output
    }

    /// The first `bytes` of `file`, as a new file: an upload cut off half way.
    static func truncated(_ file: URL, to bytes: Int, in directory: URL) throws -> URL {
        let output = directory.appendingPathComponent("truncated-" + file.lastPathComponent)
        try Data(try Data(contentsOf: file).prefix(bytes)).write(to: output)
        return output
    }

    /// A PNG picture.
    static func png(in directory: URL) async throws -> URL {
        let output = directory.appendingPathComponent("picture.png")
        let result = try await SystemToolRunner().run(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", output.path],
            limits: ToolLimits(timeout: .seconds(60)))
        guard result.succeeded else { throw ClipError(message: "ffmpeg could not make a PNG: \(result.stderr)") }
        return output
    }

    /// `ffprobe` with its JSON answer decoded loosely.
    static func probeJSON(_ arguments: [String]) async throws -> [String: Any] {
        let result = try await SystemToolRunner().run(
            "ffprobe", ["-v", "error", "-print_format", "json"] + arguments, limits: ToolLimits(timeout: .seconds(60)))
        guard result.succeeded, let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw ClipError(message: "ffprobe failed: \(result.stderr)")
        }
        return object
    }

    struct ClipError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
