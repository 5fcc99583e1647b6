/// Who may play which channel video (seed 004, 1.2.3: an unregistered person sees "only the last
/// broadcasting video and currently promoted videos"). Members and admins play everything; a
/// non-member plays a video that is free, promoted, or the channel's most recently published one.
public enum ChannelVideoAccess {
    /// What the rule needs to know of a video.
    public struct Video: Sendable, Equatable {
        public var id: String
        public var free: Bool
        public var promoted: Bool

        public init(id: String, free: Bool, promoted: Bool) {
            self.id = id
            self.free = free
            self.promoted = promoted
        }
    }

    /// Whether a non-member may play `video`, given the id of the channel's most recently
    /// published video (nil: none is published).
    public static func isOpen(_ video: Video, latestPublishedId: String?) -> Bool {
        video.free || video.promoted || video.id == latestPublishedId
    }

    /// The limit a person meets playing `video`, or nil when they may play it.
    public static func limit(for video: Video, isMember: Bool, latestPublishedId: String?) -> ChannelLimit? {
        if isMember || isOpen(video, latestPublishedId: latestPublishedId) { return nil }
        return .video
    }
}
