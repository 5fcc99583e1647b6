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
