import Testing

@testable import PodiumMedia

/// The master playlist as players get it: FFmpeg's audio-only variant is dropped when the audio
/// is every video variant's group anyway (Video.js's engine stalls on it), and kept when it is
/// all there is.
@Suite("Master playlist")
struct MasterPlaylistTests {
    static let ffmpeg = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_audio",NAME="audio_2",DEFAULT=YES,URI="stream_2.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1680800,RESOLUTION=640x480,CODECS="avc1.640016,mp4a.40.2",AUDIO="group_audio"
        stream_0.m3u8

        #EXT-X-STREAM-INF:BANDWIDTH=1020800,RESOLUTION=480x360,CODECS="avc1.640015,mp4a.40.2",AUDIO="group_audio"
        stream_1.m3u8

        #EXT-X-STREAM-INF:BANDWIDTH=140800,CODECS="mp4a.40.2",AUDIO="group_audio"
        stream_2.m3u8

        """

    @Test func theAudioOnlyVariantGoesWhenThereIsVideo() {
        let tidied = MasterPlaylist.withoutAudioOnlyVariants(Self.ffmpeg)
        #expect(MasterPlaylist.variants(tidied).map(\.playlist) == ["stream_0.m3u8", "stream_1.m3u8"])
        // The audio group, and its playlist, stay.
        #expect(
            tidied.contains(#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_audio",NAME="audio_2",DEFAULT=YES,URI="stream_2.m3u8""#))
        #expect(!tidied.contains("BANDWIDTH=140800"))
    }

    @Test func anAudioOnlyPlaylistIsLeftAlone() {
        let audio = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=140800,CODECS="mp4a.40.2"
            stream_0.m3u8

            """
        #expect(MasterPlaylist.withoutAudioOnlyVariants(audio) == audio)
    }

    /// A rung packaged already (a first rendition that is the ladder's lowest rung) joins the
    /// ladder's master after its rungs, with their sound.
    @Test func aReusedRungIsListedLastInTheRungsAudioGroup() {
        let tidied = MasterPlaylist.withoutAudioOnlyVariants(Self.ffmpeg)
        let rung = PackagedVideo.Variant(
            playlist: "aa.m3u8", bandwidth: 950_000, width: 640, height: 360, codecs: "avc1.64001e,mp4a.40.2")
        let master = MasterPlaylist.withVariant(tidied, rung, uri: "reused/index.m3u8")
        let variants = MasterPlaylist.variants(master)
        #expect(variants.map(\.playlist) == ["stream_0.m3u8", "stream_1.m3u8", "reused/index.m3u8"])
        #expect(variants.last?.height == 360 && variants.last?.bandwidth == 950_000)
        #expect(variants.last?.codecs == "avc1.64001e,mp4a.40.2")
        #expect(master.contains(#"RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",AUDIO="group_audio""#), "\(master)")
    }
}
