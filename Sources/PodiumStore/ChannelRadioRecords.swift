import Foundation
import PodiumCore

/// A radio station of the channel: a looping schedule of its ready tracks (see `RadioSchedule`).
public struct ChannelRadioRecord: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var description: String
    public var website: String?
    /// Order in the list of stations.
    public var position: Int
    /// When the current schedule started (nil until it has a ready track); with the two bases
    /// below it numbers every segment a listener gets.
    public var epoch: Date?
    public var sequenceBase: Int
    public var discontinuityBase: Int
    public var publishedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    public var archivedAt: Date?

    public init(
        id: String, name: String, description: String = "", website: String? = nil, position: Int, epoch: Date? = nil,
        sequenceBase: Int = 0, discontinuityBase: Int = 0, publishedAt: Date? = nil, createdAt: Date, updatedAt: Date,
        archivedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.website = website
        self.position = position
        self.epoch = epoch
        self.sequenceBase = sequenceBase
        self.discontinuityBase = discontinuityBase
        self.publishedAt = publishedAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}

/// One uploaded track of a station, packaged into AAC segments (MPEG-TS) by a `radio-track` job.
public struct ChannelRadioTrackRecord: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        case queued
        case processing
        case ready
        case failed
    }

    /// A packaged segment: its blob and seconds, as the schedule plays it.
    public typealias Segment = RadioSchedule.Segment

    public var id: String
    public var radioId: String
    public var position: Int
    public var title: String
    public var artist: String
    public var website: String?
    public var status: Status
    public var errorCode: String?
    public var errorMessage: String?
    /// The uploaded file in the blob store.
    public var sourceBlob: String
    public var sourceBytes: Int
    /// Seconds; 0 until packaged.
    public var duration: Double
    /// The packaged segments as JSON (`[{blob, duration}]`).
    public var segments: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, radioId: String, position: Int, title: String, artist: String = "", website: String? = nil,
        status: Status, errorCode: String? = nil, errorMessage: String? = nil, sourceBlob: String, sourceBytes: Int,
        duration: Double = 0, segments: String = "[]", createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.radioId = radioId
        self.position = position
        self.title = title
        self.artist = artist
        self.website = website
        self.status = status
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.sourceBlob = sourceBlob
        self.sourceBytes = sourceBytes
        self.duration = duration
        self.segments = segments
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The segments, decoded (none when the JSON is damaged: the track then does not play).
    public var segmentList: [Segment] {
        (try? JSONDecoder().decode([Segment].self, from: Data(segments.utf8))) ?? []
    }

    /// Every blob the track uses: its upload and its segments.
    public var blobNames: [String] { [sourceBlob] + segmentList.map(\.blob) }
}
