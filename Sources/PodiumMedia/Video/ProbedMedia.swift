import Foundation

/// What `ffprobe` found in an uploaded clip, once it has been judged acceptable.
public struct ProbedMedia: Sendable, Equatable {
    /// The container as `ffprobe` names it, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`.
    public var container: String
    /// The length in seconds.
    public var duration: Double
    /// The picture size of the first video stream; 0 for an audio-only file.
    public var width: Int
    public var height: Int
    /// Frames per second of the first video stream (30 when unknown); 0 for an audio-only file.
    public var frameRate: Double
    public var hasVideo: Bool
    public var hasAudio: Bool

    public init(
        container: String, duration: Double, width: Int, height: Int, frameRate: Double, hasVideo: Bool, hasAudio: Bool
    ) {
        self.container = container
        self.duration = duration
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
    }
}

/// The parts of `ffprobe -print_format json -show_format -show_streams` that Podium reads.
struct ProbeOutput: Decodable {
    struct Format: Decodable {
        var formatName: String?
        var duration: String?
    }

    struct Stream: Decodable {
        struct Disposition: Decodable {
            var attachedPic: Int?
        }

        var codecType: String?
        var codecName: String?
        var width: Int?
        var height: Int?
        var avgFrameRate: String?
        var rFrameRate: String?
        var duration: String?
        var disposition: Disposition?
    }

    var format: Format?
    var streams: [Stream]?

    static func parse(_ data: Data) -> ProbeOutput? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try? decoder.decode(ProbeOutput.self, from: data)
    }

    /// "30000/1001" → 29.97; nil for "0/0" and junk.
    static func rate(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: "/"), parts.count == 2,
            let numerator = Double(parts[0]), let denominator = Double(parts[1]), numerator > 0, denominator > 0
        else { return nil }
        return numerator / denominator
    }
}
