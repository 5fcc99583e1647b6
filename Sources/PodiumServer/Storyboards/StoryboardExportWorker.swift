import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumStore

/// What a `storyboard-export` job exports: the export record it fills in.
struct StoryboardExportRequest: Codable, Sendable {
    static let kind = "storyboard-export"
    var exportId: String
}

/// Makes a storyboard's export file: a sheet or the shots as PDF (written here, as vectors), the
/// shots as PNGs in a ZIP (`pdftoppm` on that PDF), or an animatic MP4 (`ffmpeg` showing each
/// PNG for its shot's duration). Progress: `render` (shots), then `encode`.
struct StoryboardExportWorker: JobWorker {
    let kind = StoryboardExportRequest.kind
    let store: any StoryboardStore
    let blobs: any BlobStore
    let runner: any ToolRunner
    let workRoot: URL
    let logger: Logger
    /// Limits of each `pdftoppm` and `ffmpeg` run.
    var limits = ToolLimits(timeout: .seconds(600), maxOutputBytes: 1024 * 1024 * 1024)
    /// The long side of the PNGs and of the animatic's frames, in pixels.
    var pixels = 1920
    var animaticPixels = 1280

    func run(_ job: JobRecord, progress: @escaping @Sendable (JobProgress) -> Void) async throws {
        let request = try JSONDecoder().decode(StoryboardExportRequest.self, from: Data(job.payload.utf8))
        guard var export = try await store.storyboardExport(id: request.exportId),
            let project = try await store.storyboard(id: export.storyboardId)
        else { return }  // deleted meanwhile: nothing left to make
        let content = try await StoryboardHub.load(project.id, throughSeq: export.seq, store: store).content
        let shots = StoryboardRendering.shots(of: content)
        guard !shots.isEmpty else { throw JobFailure(code: "empty", message: "This storyboard has no shots to export.") }
        progress(JobProgress(stage: "render", done: 0, total: shots.count))
        let directory = workRoot.appendingPathComponent("export-\(export.id)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let output: URL
        switch export.format {
        case .sheet:
            output = directory.appendingPathComponent("sheet.pdf")
            try StoryboardRendering.sheetPDF(
                content, title: project.title, aspectRatio: project.aspectRatio, perPage: export.layout
            ).write(to: output)
        case .pdf:
            output = directory.appendingPathComponent("shots.pdf")
            try StoryboardRendering.shotsPDF(content, aspectRatio: project.aspectRatio).write(to: output)
        case .png:
            let images = try await pngs(content, project: project, in: directory, pixels: pixels)
            progress(JobProgress(stage: "encode", done: 0, total: 1))
            let files = try zip(images, shots).map { (name: $0.name, data: try Data(contentsOf: $0.url)) }
            output = directory.appendingPathComponent("shots.zip")
            try ZipArchive.stored(files).write(to: output)
        case .animatic:
            let images = try await pngs(content, project: project, in: directory, pixels: animaticPixels)
            progress(JobProgress(stage: "encode", done: 0, total: 1))
            output = directory.appendingPathComponent("animatic.mp4")
            try await animatic(images, shots: shots, to: output, in: directory)
        }
        progress(JobProgress(stage: "encode", done: 1, total: 1))
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        export.blob = try blobs.put(fileAt: output, fileExtension: output.pathExtension)
        export.bytes = bytes
        export.status = .ready
        try await store.updateStoryboardExport(export)
    }

    func failed(_ job: JobRecord, because failure: JobFailure) async {
        guard let request = try? JSONDecoder().decode(StoryboardExportRequest.self, from: Data(job.payload.utf8)),
            var export = try? await store.storyboardExport(id: request.exportId)
        else { return }
        export.status = .failed
        export.errorCode = failure.code
        export.errorMessage = failure.message
        do {
            try await store.updateStoryboardExport(export)
        } catch {
            logger.error("storyboard export \(export.id): could not record its failure: \(error)")
        }
    }

    /// The shots as PNGs, in story order: the shots' PDF rasterised by `pdftoppm`.
    private func pngs(_ content: Storyboard, project: StoryboardRecord, in directory: URL, pixels: Int) async throws -> [URL] {
        let pdf = directory.appendingPathComponent("shots.pdf")
        try StoryboardRendering.shotsPDF(content, aspectRatio: project.aspectRatio).write(to: pdf)
        let prefix = directory.appendingPathComponent("shot")
        let result = try await runner.run(
            "pdftoppm", ["-png", "-scale-to", String(pixels), pdf.path, prefix.path], limits: limits)
        if result.timedOut { throw JobFailure(code: "timeout", message: "Drawing the shots took too long.") }
        guard result.exitCode == 0 else {
            throw JobFailure(code: "internal", message: "The shots could not be drawn (pdftoppm: \(result.exitCode)).")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("shot-") && $0.hasSuffix(".png") }
        // pdftoppm pads page numbers to the width of the page count: sorting by the number, not
        // the name, keeps story order.
        return names.sorted { Self.page(of: $0) < Self.page(of: $1) }.map { directory.appendingPathComponent($0) }
    }

    static func page(of name: String) -> Int {
        Int(name.dropFirst("shot-".count).dropLast(".png".count)) ?? 0
    }

    /// File names in the ZIP: the position and the shot's own number ("03-shot-2A.png").
    private func zip(_ images: [URL], _ shots: [Shot]) throws -> [(name: String, url: URL)] {
        guard images.count == shots.count else {
            throw JobFailure(code: "internal", message: "Drew \(images.count) of \(shots.count) shots.")
        }
        let names = Self.pngNames(shots)
        return Swift.zip(names, images).map { ($0, $1) }
    }

    /// "01-shot-1.png", "02-shot-2A.png"…: the position zero-padded to two digits, or to as many
    /// as the shot count has (so the names sort in story order), then the shot's own number.
    static func pngNames(_ shots: [Shot]) -> [String] {
        let width = max(2, String(shots.count).count)
        return shots.enumerated().map { index, shot in
            let position = String(repeating: "0", count: width - String(index + 1).count) + String(index + 1)
            let number = shot.number.filter { $0.isLetter || $0.isNumber }
            return "\(position)-shot-\(number.isEmpty ? "x" : number).png"
        }
    }

    /// Each shot's PNG for its duration (ffmpeg's concat list), at 25 frames a second.
    private func animatic(_ images: [URL], shots: [Shot], to output: URL, in directory: URL) async throws {
        guard images.count == shots.count else {
            throw JobFailure(code: "internal", message: "Drew \(images.count) of \(shots.count) shots.")
        }
        var list = "ffconcat version 1.0\n"
        for (image, shot) in Swift.zip(images, shots) {
            list += "file '\(image.lastPathComponent)'\nduration \(String(format: "%.3f", shot.duration))\n"
        }
        // The concat demuxer ignores the last entry's duration unless the file is listed again.
        list += "file '\(images[images.count - 1].lastPathComponent)'\n"
        let listFile = directory.appendingPathComponent("shots.ffconcat")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let total = shots.reduce(0) { $0 + $1.duration }
        let result = try await runner.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", listFile.path,
                "-vf", "fps=25,scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast",
                "-crf", "23", "-t", String(format: "%.3f", total), "-movflags", "+faststart", output.path,
            ], limits: limits)
        if result.timedOut { throw JobFailure(code: "timeout", message: "Encoding the animatic took too long.") }
        guard result.exitCode == 0 else {
            logger.error("animatic: ffmpeg exited \(result.exitCode): \(result.stderr.prefix(2000))")
            throw JobFailure(code: "internal", message: "The animatic could not be encoded.")
        }
    }
}
