import PodiumCore
import Testing

/// The membership rule for channel videos: members play everything; a non-member plays only free,
/// promoted and the newest published video.
@Suite struct ChannelVideoAccessTests {
    static func video(_ id: String, free: Bool = false, promoted: Bool = false) -> ChannelVideoAccess.Video {
        .init(id: id, free: free, promoted: promoted)
    }

    @Test func aMemberPlaysEveryVideo() {
        for video in [Self.video("a"), Self.video("b", free: true), Self.video("c", promoted: true)] {
            #expect(ChannelVideoAccess.limit(for: video, isMember: true, latestPublishedId: "z") == nil)
        }
    }

    @Test func aNonMemberPlaysFreePromotedAndTheNewestOnly() {
        #expect(ChannelVideoAccess.limit(for: Self.video("a", free: true), isMember: false, latestPublishedId: "z") == nil)
        #expect(ChannelVideoAccess.limit(for: Self.video("a", promoted: true), isMember: false, latestPublishedId: "z") == nil)
        #expect(ChannelVideoAccess.limit(for: Self.video("z"), isMember: false, latestPublishedId: "z") == nil)
        #expect(ChannelVideoAccess.limit(for: Self.video("a"), isMember: false, latestPublishedId: "z") == .video)
    }

    @Test func withNothingPublishedOnlyFreeAndPromotedAreOpen() {
        #expect(ChannelVideoAccess.limit(for: Self.video("a"), isMember: false, latestPublishedId: nil) == .video)
        #expect(!ChannelVideoAccess.isOpen(Self.video("a"), latestPublishedId: nil))
        #expect(ChannelVideoAccess.isOpen(Self.video("a", free: true, promoted: true), latestPublishedId: nil))
    }
}
