import Foundation
import Testing

@testable import PodiumMedia

@Suite("VideoProbe")
struct VideoProbeTests {
    @Test("clips in every accepted container are recognised by content", arguments: VideoClips.containers)
    func recognisesContainers(_ clip: VideoClips.Clip) async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let made = try await VideoClips.make(clip, in: work)
        // A misleading name must not matter: the probe reads the bytes.
        let renamed = work.appendingPathComponent("upload.bin")
        try FileManager.default.moveItem(at: made, to: renamed)

        let probed = try await VideoProbe().probe(renamed)
        #expect(probed.hasVideo == clip.hasVideo)
        #expect(probed.hasAudio == clip.hasAudio)
        #expect(probed.width == clip.width)
        #expect(probed.height == clip.height)
        #expect(abs(probed.duration - Double(clip.seconds)) < 0.2)
        if clip.hasVideo { #expect(abs(probed.frameRate - 25) < 0.1) }
    }

    @Test("a clip turned a quarter when shown is recorded at the size shown", arguments: [90, 270, 180])
    func recordsTheSizeShown(_ degrees: Int) async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let stored = try await VideoClips.make(VideoClips.mp4, in: work)
        let turned = try await VideoClips.rotated(stored, degrees: degrees, in: work)
        let streams = try await VideoClips.probeJSON(["-show_streams", "-select_streams", "v:0", turned.path])["streams"]
        #expect("\(streams ?? "")".contains("Display Matrix"), "the clip must say it is turned")
        let probed = try await VideoProbe().probe(turned)
        let size = (probed.width, probed.height)
        #expect(size == (degrees == 180 ? (320, 240) : (240, 320)))
    }

    @Test("a turn is read from the display matrix, else from the older rotate tag")
    func readsRotation() throws {
        func stream(_ json: String) throws -> ProbeOutput.Stream {
            let output = try #require(ProbeOutput.parse(Data(#"{"streams":[\#(json)]}"#.utf8)))
            return try #require(output.streams?.first)
        }
        #expect(try stream(#"{"side_data_list":[{"side_data_type":"Display Matrix","rotation":-90}]}"#).rotation == 270)
        #expect(try stream(#"{"side_data_list":[{"side_data_type":"Display Matrix","rotation":90.0}]}"#).isQuarterTurned)
        #expect(try stream(#"{"tags":{"rotate":"90"}}"#).rotation == 90)
        #expect(try stream(#"{"tags":{"rotate":"180"}}"#).isQuarterTurned == false)
        #expect(
            try stream(#"{"tags":{"rotate":"90"},"side_data_list":[{"side_data_type":"Display Matrix","rotation":180}]}"#)
                .rotation == 180)
        // Other side data, junk and nothing at all: not turned, and the probe still reads the stream.
        #expect(try stream(#"{"side_data_list":[{"side_data_type":"Stereo 3D","type":"2D"}]}"#).rotation == 0)
        #expect(try stream(#"{"tags":{"rotate":"sideways"}}"#).rotation == 0)
        #expect(try stream(#"{"side_data_list":[{"side_data_type":"Display Matrix","rotation":"x"}]}"#).rotation == 0)
        #expect(try stream("{}").rotation == 0)
    }

    @Test("a zero-length file is refused as empty")
    func refusesEmpty() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let empty = work.appendingPathComponent("empty.mp4")
        try Data().write(to: empty)
        await #expect(throws: IngestError.emptyVideo) { try await VideoProbe().probe(empty) }
    }

    @Test("an MP4 cut off half way is refused as corrupt")
    func refusesTruncated() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await VideoClips.make(VideoClips.mp4, in: work)
        let size = try Data(contentsOf: clip).count
        let cut = try VideoClips.truncated(clip, to: size / 2, in: work)
        let error = await #expect(throws: IngestError.self) { try await VideoProbe().probe(cut) }
        #expect(error?.code == "corrupt")
    }

    @Test("a PDF and a PNG are refused as not videos, saying what they are")
    func refusesDocumentsAndPictures() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let pdf = TestSupport.fixture("cairo-slides.pdf")
        let pdfError = await #expect(throws: IngestError.self) { try await VideoProbe().probe(pdf) }
        #expect(pdfError == IngestError.notVideo("a PDF"))
        let png = try await VideoClips.png(in: work)
        let pngError = await #expect(throws: IngestError.self) { try await VideoProbe().probe(png) }
        #expect(pngError == IngestError.notVideo("an image"))
        let garbage = TestSupport.fixture("garbage.pdf")
        let garbageError = await #expect(throws: IngestError.self) { try await VideoProbe().probe(garbage) }
        #expect(["corrupt", "not_video"].contains(garbageError?.code ?? ""))
    }

    @Test("a clip longer than the limit or larger than the picture limit is refused")
    func refusesOverLimits() async throws {
        let work = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await VideoClips.make(VideoClips.mp4, in: work)
        let short = VideoProbe(limits: VideoLimits(maxDuration: .seconds(1)))
        await #expect(throws: IngestError.tooLong(limit: .seconds(1))) { try await short.probe(clip) }
        let small = VideoProbe(limits: VideoLimits(maxWidth: 160, maxHeight: 120))
        await #expect(throws: IngestError.resolutionTooLarge(maxWidth: 160, maxHeight: 120)) {
            try await small.probe(clip)
        }
    }

    @Test("cover art in an audio file does not make it a video")
    func coverArtIsAudio() throws {
        let json = """
            {"format": {"format_name": "mov,mp4,m4a,3gp,3g2,mj2", "duration": "3.0"},
             "streams": [{"codec_type": "audio", "codec_name": "aac"},
                         {"codec_type": "video", "codec_name": "mjpeg", "width": 600, "height": 600,
                          "disposition": {"attached_pic": 1}}]}
            """
        let output = try #require(ProbeOutput.parse(Data(json.utf8)))
        let probed = try VideoProbe().judge(output, formatName: "mov,mp4,m4a,3gp,3g2,mj2")
        #expect(!probed.hasVideo)
        #expect(probed.hasAudio)
    }
}
