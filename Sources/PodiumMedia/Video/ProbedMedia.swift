import Foundation

/// What `ffprobe` found in an uploaded clip, once it has been judged acceptable.
public struct ProbedMedia: Sendable, Equatable {
    /// The container as `ffprobe` names it, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`.
    public var container: String
    /// The length in seconds.
    public var duration: Double
    /// The picture size of the first video stream as it is shown (a phone clip stored 1920x1080
    /// with a quarter turn in its display matrix is 1080x1920, as its renditions and poster are);
    /// 0 for an audio-only file.
    public var width: Int
    public var height: Int
    /// Frames per second of the first video stream (30 when unknown); 0 for an audio-only file.
    public var frameRate: Double
    public var hasVideo: Bool
    public var hasAudio: Bool
    /// What the first video stream is, as `ffprobe` names it: what decides whether its picture
    /// can be copied into a first playable rendition rather than encoded (see
    /// ``VideoPackager/mayRemux(_:)``). Nil when unknown or for an audio-only file.
    public var video: VideoStreamInfo?

    public init(
        container: String, duration: Double, width: Int, height: Int, frameRate: Double, hasVideo: Bool, hasAudio: Bool,
        video: VideoStreamInfo? = nil
    ) {
        self.container = container
        self.duration = duration
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
        self.video = video
    }
}

/// The codec details of a clip's video stream that `ffprobe` reports.
public struct VideoStreamInfo: Sendable, Equatable {
    /// `h264`, `hevc`, `vp9`, ...
    public var codec: String
    /// `High`, `Main`, `Constrained Baseline`, `High 10`, ... (nil when not said).
    public var profile: String?
    /// The H.264 level times ten (40: level 4.0); nil when not said.
    public var level: Int?
    /// `yuv420p`, `yuv422p10le`, ...
    public var pixelFormat: String?
    /// Bits per second of the video stream, or of the whole file when the stream does not say.
    public var bitRate: Int?
    /// The turn the picture takes when shown (0, 90, 180 or 270).
    public var rotation: Int

    public init(
        codec: String, profile: String? = nil, level: Int? = nil, pixelFormat: String? = nil, bitRate: Int? = nil,
        rotation: Int = 0
    ) {
        self.codec = codec
        self.profile = profile
        self.level = level
        self.pixelFormat = pixelFormat
        self.bitRate = bitRate
        self.rotation = rotation
    }
}

/// The parts of `ffprobe -print_format json -show_format -show_streams` that Podium reads.
struct ProbeOutput: Decodable {
    struct Format: Decodable {
        var formatName: String?
        var duration: String?
        var bitRate: String?
    }

    struct Stream: Decodable {
        struct Disposition: Decodable {
            var attachedPic: Int?
        }

        var codecType: String?
        var codecName: String?
        var profile: String?
        var level: Int?
        var pixFmt: String?
        var bitRate: String?
        var width: Int?
        var height: Int?
        var avgFrameRate: String?
        var rFrameRate: String?
        var duration: String?
        var disposition: Disposition?
        var tags: Tags?
        var sideDataList: [SideData]?

        /// The stream's tags; only `rotate` is read (how older muxers and ffprobes say a turn).
        struct Tags: Decodable {
            var rotate: String?

            enum CodingKeys: String, CodingKey { case rotate }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                rotate = try? container.decodeIfPresent(String.self, forKey: .rotate)
            }
        }

        /// A side data entry: the "Display Matrix" says by how many degrees the picture turns when shown.
        struct SideData: Decodable {
            var sideDataType: String?
            var rotation: Double?

            enum CodingKeys: String, CodingKey { case sideDataType, rotation }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                sideDataType = try? container.decodeIfPresent(String.self, forKey: .sideDataType)
                rotation = try? container.decodeIfPresent(Double.self, forKey: .rotation)
            }
        }

        /// The turn the picture takes when shown, in degrees 0, 90, 180 or 270 (either way round:
        /// only whether it is a quarter turn matters here). The display matrix wins over the tag.
        var rotation: Int {
            let matrix = sideDataList?.first { $0.sideDataType == "Display Matrix" }?.rotation
            guard let degrees = matrix ?? tags?.rotate.flatMap(Double.init), degrees.isFinite else { return 0 }
            let quarter = Int((degrees / 90).rounded())
            return (quarter % 4 + 4) % 4 * 90
        }

        /// Whether the picture is shown a quarter turn round, its width and height swapped.
        var isQuarterTurned: Bool { rotation == 90 || rotation == 270 }
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
