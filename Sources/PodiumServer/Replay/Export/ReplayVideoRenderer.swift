import Foundation
import PodiumCore
import PodiumMedia
import PodiumStore
import Synchronization

/// Renders a replay's scenes as an MP4: each distinct picture drawn once (the slide's page from
/// its deck's PDF with that moment's ink laid over as vectors, as the annotated PDF export does,
/// then rasterised by `pdftoppm`, a zoom as a crop of it), then `ffmpeg`'s concat demuxer shows
/// each for its scene's length, with the presenter's audio takes at their offsets (silence
/// elsewhere): H.264 and AAC, 1280x720 (padded), a few frames a second, `+faststart`.
struct ReplayVideoRenderer: Sendable {
    /// A deck's PDF and its pages' sizes in points.
    struct Deck: Sendable {
        var source: URL
        var pageSizes: [Int: (width: Double, height: Double)]
    }

    let runner: any ToolRunner
    var limits = ToolLimits(timeout: .seconds(1800), maxOutputBytes: 4 * 1024 * 1024 * 1024)
    var width = 1280
    var height = 720
    /// Frames a second: slides do not move, so a few, enough for ink to appear on time.
    var frameRate = 5

    enum Stage {
        case render(done: Int, total: Int)
        case encode(doneMs: Int, totalMs: Int)
    }

    /// Writes the MP4 to `output`, working in `directory` (which the caller removes).
    func render(
        _ scenes: [ReplayScene], decks: [String: Deck], audio: [ReplayExportSource.AudioTake], to output: URL,
        in directory: URL, progress: @escaping @Sendable (Stage) -> Void
    ) async throws {
        guard !scenes.isEmpty else { throw JobFailure(code: "nothing_shown", message: "Nothing was shown in this session.") }
        // Each distinct picture once, in order of first appearance.
        var pictures: [ReplayPicture] = []
        var indexOf: [String: Int] = [:]
        for scene in scenes where indexOf[scene.picture.key] == nil {
            indexOf[scene.picture.key] = pictures.count
            pictures.append(scene.picture)
        }
        progress(.render(done: 0, total: pictures.count))
        let slides = try await slidePDF(pictures, decks: decks, in: directory)
        var images: [URL] = []
        for (index, picture) in pictures.enumerated() {
            try Task.checkCancellation()
            let image = directory.appendingPathComponent("picture-\(index)")
            switch picture {
            case .plain(let color):
                try await plain(color: color, to: image.appendingPathExtension("png"))
            case .slide(let deck, let page, let viewport, _):
                guard let slides else { throw JobFailure(code: "internal", message: "The slides were not drawn.") }
                let size = decks[deck]?.pageSizes[page] ?? (width: 612, height: 792)
                try await rasterise(
                    slides, page: slidePage(of: index, in: pictures), size: size, viewport: viewport, to: image)
            }
            images.append(image.appendingPathExtension("png"))
            progress(.render(done: index + 1, total: pictures.count))
        }
        let list = scenes.map { (image: images[indexOf[$0.picture.key]!], duration: $0.duration) }
        try await encode(list, audio: audio, to: output, in: directory, progress: progress)
    }

    /// The 1-based page of picture `index` in the slides' PDF: its place among the slide pictures.
    private func slidePage(of index: Int, in pictures: [ReplayPicture]) -> Int {
        pictures[...index].count { if case .slide = $0 { true } else { false } }
    }

    /// One PDF with a page per slide picture (in order): the deck's page (`qpdf --pages`) with
    /// the picture's ink laid over (``AnnotationOverlay``, `qpdf --overlay`). Nil when none.
    private func slidePDF(_ pictures: [ReplayPicture], decks: [String: Deck], in directory: URL) async throws -> URL? {
        var pages: [(source: URL, page: Int)] = []
        var overlay: [(width: Double, height: Double, ink: [InkPath])] = []
        for picture in pictures {
            guard case .slide(let deckId, let page, _, let strokes) = picture else { continue }
            guard let deck = decks[deckId] else {
                throw JobFailure(code: "deck_missing", message: "A deck shown in this session is no longer in the library.")
            }
            let size = deck.pageSizes[page] ?? (width: 612, height: 792)
            pages.append((deck.source, page))
            overlay.append((size.width, size.height, strokes.map(SessionController.inkPath)))
        }
        guard !pages.isEmpty else { return nil }
        let collected = directory.appendingPathComponent("pages.pdf")
        let ink = directory.appendingPathComponent("ink.pdf")
        let combined = directory.appendingPathComponent("slides.pdf")
        let exporter = PDFExporter(runner: runner, limits: limits)
        do {
            try await exporter.collect(pages, writingTo: collected)
            try AnnotationOverlay.pdf(pages: overlay).write(to: ink)
            try await exporter.overlay(ink, on: collected, writingTo: combined)
        } catch let error as IngestError {
            throw JobFailure(code: "render_failed", message: "The slides could not be drawn: \(error.message)")
        }
        return combined
    }

    /// Page `page` of `pdf` as a PNG at `prefix`.png: scaled so the viewport (the whole page
    /// unless zoomed) fits the frame, and cropped to it.
    private func rasterise(
        _ pdf: URL, page: Int, size: (width: Double, height: Double), viewport: Viewport, to prefix: URL
    ) async throws {
        let visible = (width: max(1, viewport.w * size.width), height: max(1, viewport.h * size.height))
        // Pixels per point.
        let scale = min(Double(width) / visible.width, Double(height) / visible.height)
        var arguments = ["-png", "-f", String(page), "-l", String(page), "-singlefile", "-r", String(format: "%.4f", scale * 72)]
        if viewport != .fullPage {
            arguments += [
                "-x", String(Int((viewport.x * size.width * scale).rounded())),
                "-y", String(Int((viewport.y * size.height * scale).rounded())),
                "-W", String(max(2, Int((visible.width * scale).rounded()))),
                "-H", String(max(2, Int((visible.height * scale).rounded()))),
            ]
        }
        arguments += [pdf.path, prefix.path]
        let result = try await runner.run("pdftoppm", arguments, limits: limits)
        if result.timedOut { throw JobFailure(code: "timeout", message: "Drawing the slides took too long.") }
        guard result.exitCode == 0 else {
            throw JobFailure(
                code: "render_failed", message: "A slide could not be drawn (pdftoppm: \(result.stderr.prefix(200))).")
        }
    }

    /// A frame of one colour (`#RRGGBB`).
    private func plain(color: String, to png: URL) async throws {
        let hex = Stroke.isColor(color) ? String(color.dropFirst()) : "000000"
        let result = try await runner.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=0x\(hex):s=\(width)x\(height)",
                "-frames:v", "1", png.path,
            ], limits: limits)
        guard result.succeeded else {
            throw JobFailure(code: "render_failed", message: "A blank frame could not be drawn (ffmpeg: \(result.exitCode)).")
        }
    }

    /// The MP4: each image for its duration, the audio mixed in at its offsets, over silence.
    private func encode(
        _ list: [(image: URL, duration: Int)], audio: [ReplayExportSource.AudioTake], to output: URL, in directory: URL,
        progress: @escaping @Sendable (Stage) -> Void
    ) async throws {
        let totalMs = list.reduce(0) { $0 + $1.duration }
        var concat = "ffconcat version 1.0\n"
        for entry in list {
            concat += "file '\(entry.image.lastPathComponent)'\nduration \(Self.seconds(entry.duration))\n"
        }
        // The concat demuxer ignores the last entry's duration unless the file is listed again.
        concat += "file '\(list[list.count - 1].image.lastPathComponent)'\n"
        let listFile = directory.appendingPathComponent("scenes.ffconcat")
        try concat.write(to: listFile, atomically: true, encoding: .utf8)

        var arguments = [
            "-hide_banner", "-loglevel", "error", "-nostats", "-y", "-progress", "pipe:1",
            "-f", "concat", "-safe", "0", "-i", listFile.path,
            "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo",
        ]
        var filters = [
            "[0:v]fps=\(frameRate),scale=\(width):\(height):force_original_aspect_ratio=decrease,"
                + "pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2:color=black,setsar=1,format=yuv420p[v]"
        ]
        var mixed = ["[1:a]"]
        for (index, take) in audio.enumerated() {
            arguments += ["-i", take.file.path]
            let input = index + 2
            var chain = "[\(input):a]aresample=48000,aformat=channel_layouts=stereo"
            // A take that began before the session: its start cut; after: delayed to its place.
            if take.offset < 0 { chain += ",atrim=start=\(Self.seconds(-take.offset)),asetpts=PTS-STARTPTS" }
            if take.offset > 0 { chain += ",adelay=delays=\(take.offset):all=1" }
            filters.append(chain + "[a\(index)]")
            mixed.append("[a\(index)]")
        }
        filters.append(
            "\(mixed.joined())amix=inputs=\(mixed.count):duration=first:dropout_transition=0:normalize=0[a]")
        arguments += [
            "-filter_complex", filters.joined(separator: ";"), "-map", "[v]", "-map", "[a]",
            "-c:v", "libx264", "-preset", "veryfast", "-tune", "stillimage", "-crf", "23", "-g", String(frameRate * 10),
            "-r", String(frameRate), "-c:a", "aac", "-b:a", "96k", "-t", Self.seconds(totalMs), "-movflags", "+faststart",
            output.path,
        ]
        progress(.encode(doneMs: 0, totalMs: totalMs))
        let reader = FFmpegProgressLines { microseconds in
            progress(.encode(doneMs: min(totalMs, Int(microseconds / 1000)), totalMs: totalMs))
        }
        let result = try await runner.run("ffmpeg", arguments, limits: limits, onStdout: { reader.consume($0) })
        if result.timedOut { throw JobFailure(code: "timeout", message: "Encoding the video took too long.") }
        guard result.exitCode == 0 else {
            throw JobFailure(
                code: "encode_failed", message: "The video could not be encoded (ffmpeg: \(result.stderr.suffix(300))).")
        }
        progress(.encode(doneMs: totalMs, totalMs: totalMs))
    }

    static func seconds(_ milliseconds: Int) -> String { String(format: "%.3f", Double(milliseconds) / 1000) }
}

/// `ffmpeg -progress pipe:1` as it arrives: the `out_time_us` lines (chunks may split a line).
final class FFmpegProgressLines: Sendable {
    private let pending = Mutex(Data())
    private let report: @Sendable (Int64) -> Void

    init(report: @escaping @Sendable (Int64) -> Void) { self.report = report }

    func consume(_ chunk: Data) {
        let lines: [Substring] = pending.withLock { buffer in
            buffer.append(chunk)
            guard let newline = buffer.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
            let complete = String(decoding: buffer[buffer.startIndex...newline], as: UTF8.self)
            buffer = Data(buffer[(newline + 1)...])
            return complete.split(whereSeparator: \.isNewline)
        }
        for line in lines where line.hasPrefix("out_time_us=") {
            if let value = Int64(line.dropFirst("out_time_us=".count)), value >= 0 { report(value) }
        }
    }
}
