import Foundation
import Testing

@testable import PodiumMedia

/// Caption files: SRT converted to WebVTT, WebVTT read, bad times and markup refused or cleaned,
/// and the HLS playlists that list the tracks.
@Suite("Captions") struct CaptionsTests {
    static let srt = """
        1
        00:00:00,500 --> 00:00:02,250
        Hello <font color="red">there</font>

        2
        00:00:03,000 --> 00:01:04,000
        {\\an8}<i>Second</i> line & more
        and a <u>third</u>

        """

    @Test func anSRTFileIsConvertedToWebVTT() throws {
        let cues = try Captions.parse(Self.srt.replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(
            cues == [
                CaptionCue(start: 0.5, end: 2.25, text: "Hello there"),
                CaptionCue(start: 3, end: 64, text: "<i>Second</i> line &amp; more\nand a <u>third</u>"),
            ])
        #expect(
            Captions.webVTT(cues) == """
                WEBVTT

                1
                00:00:00.500 --> 00:00:02.250
                Hello there

                2
                00:00:03.000 --> 00:01:04.000
                <i>Second</i> line &amp; more
                and a <u>third</u>

                """)
        // What it writes reads back the same.
        #expect(try Captions.parse(Captions.webVTT(cues)) == cues)
    }

    @Test func aWebVTTFileIsReadWithItsNotesStylesSettingsAndShortTimes() throws {
        let text = """
            \u{FEFF}WEBVTT - lecture 1

            NOTE a comment
            over two lines

            STYLE
            ::cue { color: red }

            intro
            00:01.000 --> 00:02.500 align:start position:10%
            <v Ada>Welcome</v> &lt;all&gt;

            01:00:00.000 --> 01:00:01.5
            <b>Bold</b> <c.yellow>class</c> <u>under</u>
            """
        #expect(
            try Captions.parse(text) == [
                CaptionCue(start: 1, end: 2.5, text: "Welcome &lt;all&gt;"),
                CaptionCue(start: 3600, end: 3601.5, text: "<b>Bold</b> class <u>under</u>"),
            ])
    }

    @Test(arguments: [
        ("1\n00:00:01,000 --> 00:00:0x,000\nA\n", "caption_time"),
        ("1\n00:00:01,000 --> 00:00:02\nA\n", "caption_time"),
        ("1\n00:61:01,000 --> 00:62:02,000\nA\n", "caption_time"),
        ("WEBVTT\n\n00:00:05.000 --> 00:00:04.000\nA\n", "caption_order"),
        ("WEBVTT\n\n00:00:05.000 --> 00:00:05.000\nA\n", "caption_order"),
        ("1\nno timing here\nA\n", "caption_cue"),
        ("WEBVTT\n\nNOTE only a note\n", "caption_empty"),
        ("", "caption_empty"),
    ])
    func aBadFileIsRefusedWithItsCode(_ text: String, _ code: String) {
        #expect(throws: CaptionError.self) { try Captions.parse(text) }
        do {
            _ = try Captions.parse(text)
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test func cueTextCannotEndTheCueOrHideAnHTMLTag() {
        #expect(Captions.clean("a --> b\n\n\nc") == "a --&gt; b\nc")
        #expect(Captions.clean("<img src=x onerror=alert(1)>x < y > z") == "x &lt; y &gt; z")
        #expect(Captions.clean("<B>loud</B> &amp; &nbsp; &") == "<b>loud</b> &amp; &nbsp; &amp;")
    }

    @Test func htmlInACueIsRefusedNamingTheCueAndTheTag() throws {
        let file =
            "1\n00:00:01,000 --> 00:00:02,000\nHello\n\n2\n00:00:03,000 --> 00:00:04,000\nA <img src=x onerror=alert(1)> B\n"
        do {
            _ = try Captions.parse(file)
            Issue.record("an <img> in cue 2 was taken")
        } catch {
            #expect(error.code == "caption_markup" && error.cue == 2, "\(error)")
            #expect(error.message.contains("<img src=x"), "\(error)")
        }
        for html in ["<script>x</script>", "<a href=\"https://example.com\">link</a>", "<div>x</div>", "</span>"] {
            #expect(throws: CaptionError.self, "\(html)") { try Captions.checkMarkup(html, cue: 1) }
        }
    }

    @Test func captionMarkupIsTakenAndStyledOrStripped() throws {
        // SRT's font and line breaks, WebVTT's voices, classes, languages and ruby, a `<` that is text.
        let file = """
            WEBVTT

            00:00:01.000 --> 00:00:02.000
            <font color="#ffff00">Yellow</font> <v Roger>Hi</v> <c.loud>now</c><br>next

            00:00:03.000 --> 00:00:04.000
            <lang en>1 < 2</lang> <ruby>漢<rt>kan</rt></ruby> <s>gone</s> <i>it</i>
            """
        #expect(
            try Captions.parse(file) == [
                CaptionCue(start: 1, end: 2, text: "Yellow Hi now\nnext"),
                CaptionCue(start: 3, end: 4, text: "1 &lt; 2 漢kan gone <i>it</i>"),
            ])
    }

    @Test func languageTagsAreBCP47Shaped() {
        for tag in ["en", "de-CH", "zh-Hans", "es-419", "fil"] { #expect(Captions.isLanguageTag(tag), "\(tag)") }
        for tag in ["", "e", "english-language-x", "en_US", "en-", "../x", "en-*"] {
            #expect(!Captions.isLanguageTag(tag), "\(tag)")
        }
    }

    @Test func theMasterPlaylistListsTheTracksAsSubtitleRenditions() {
        let master = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_audio",NAME="audio",DEFAULT=YES,URI="a.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x240,CODECS="avc1.64000d,mp4a.40.2",AUDIO="group_audio"
            v0.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x480,CODECS="avc1.64001e,mp4a.40.2",AUDIO="group_audio"
            v1.m3u8
            """
        let listed = Captions.masterPlaylist(
            master,
            subtitles: [
                .init(language: "en", name: "English", uri: "captions-en.m3u8"),
                .init(language: "de", name: "Deutsch \"DE\"", uri: "captions-de.m3u8"),
            ])
        let lines = listed.components(separatedBy: "\n")
        #expect(
            lines[3]
                == #"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="captions-en.m3u8""#
        )
        #expect(lines[4].contains(#"NAME="Deutsch 'DE'""#))
        #expect(lines.filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }.allSatisfy { $0.hasSuffix(#",SUBTITLES="subs""#) })
        #expect(lines.filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }.count == 2)
        #expect(MasterPlaylist.variants(listed).map(\.playlist) == ["v0.m3u8", "v1.m3u8"])
        #expect(Captions.masterPlaylist(master, subtitles: []) == master)
        #expect(
            Captions.mediaPlaylist(duration: 4.04, uri: "captions-en.vtt")
                == "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.040,\ncaptions-en.vtt\n#EXT-X-ENDLIST\n"
        )
    }
}
