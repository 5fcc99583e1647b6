import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bounds on converting one Office document or set of images to PDF.
public struct OfficeLimits: Sendable {
    /// The converter: LibreOffice's `soffice` (a name on `PATH` or a path). Tests put a fake here.
    public var converter: String
    /// How long one conversion may run; past it the converter's whole process group is killed.
    public var timeout: Duration
    /// Address-space limit of the converter (`prlimit --as`): LibreOffice maps a lot, 4 GiB.
    public var memoryBytes: Int
    /// The most a ZIP container (PPTX, ODP, DOCX, a ZIP of images) may declare once expanded.
    public var maxExpandedBytes: UInt64
    /// The highest expansion ratio of one entry larger than a megabyte (XML compresses 10-30×;
    /// a zip bomb, thousands of times).
    public var maxCompressionRatio: UInt64
    /// The most entries a ZIP container may have.
    public var maxEntries: Int
    /// The most images in one set.
    public var maxImages: Int
    /// Runs the converter without a network (`unshare --net`) where the server may (as root, in
    /// a kernel and container that allow it); elsewhere the documentation says what isolates it.
    public var isolateNetwork: Bool

    public init(
        converter: String = "soffice", timeout: Duration = .seconds(180), memoryBytes: Int = 4 * 1024 * 1024 * 1024,
        maxExpandedBytes: UInt64 = 1024 * 1024 * 1024, maxCompressionRatio: UInt64 = 1000, maxEntries: Int = 20_000,
        maxImages: Int = 500, isolateNetwork: Bool = true
    ) {
        self.converter = converter
        self.timeout = timeout
        self.memoryBytes = memoryBytes
        self.maxExpandedBytes = maxExpandedBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.maxEntries = maxEntries
        self.maxImages = maxImages
        self.isolateNetwork = isolateNetwork
    }
}

extension IngestError {
    /// The upload is none of the accepted types (an HTTP 415 at upload).
    public static let unsupportedType = IngestError(
        code: "unsupported_type",
        message: "Podium cannot show this kind of file. Upload \(DeckFormat.acceptedDescription).")

    /// LibreOffice could not open or convert the document.
    public static let conversionFailed = IngestError(
        code: "convert_failed",
        message: "This document could not be converted to slides: it may be damaged or saved by a program "
            + "LibreOffice cannot read. Open it, save it again (or export it as PDF) and upload the new file.")

    /// The conversion ran past its limit and was stopped.
    public static func conversionTimeout(_ limit: Duration) -> IngestError {
        let seconds = limit.components.seconds
        return IngestError(
            code: "convert_timeout",
            message: "Converting this document took longer than the \(seconds == 1 ? "1 second" : "\(seconds) seconds") "
                + "the server allows, so it was stopped. Export it as PDF and upload that, or split it.")
    }

    /// A password-protected Office or OpenDocument file.
    public static let encryptedDocument = IngestError(
        code: "encrypted",
        message: "This document is protected with a password. Save a copy without the password and upload it again.")

    /// A ZIP container that would expand far beyond any real document.
    public static let zipBomb = IngestError(
        code: "zip_bomb",
        message: "This file expands to far more than any real document (it looks like a zip bomb), so it was refused.")

    /// More images than a deck may have.
    public static func tooManyImages(limit: Int) -> IngestError {
        IngestError(
            code: "too_many_images", message: "A set of images may have at most \(limit) images. Split it into smaller decks.")
    }

    /// An image that cannot be read.
    public static func badImage(_ name: String) -> IngestError {
        IngestError(
            code: "bad_image",
            message: "The image \"\(name)\" could not be read: it may be damaged or not a PNG, JPEG or WebP image.")
    }
}

/// Turns Office and Keynote documents into PDF with LibreOffice, and images into PDF pages,
/// before the PDF ingest; reads the speaker notes and slide titles of PPTX and ODP decks.
///
/// LibreOffice runs headless through the same ``ToolRunner`` as every other tool (so under
/// `prlimit`, with its whole process group killed at the deadline), with a profile directory of
/// its own inside the job's work directory (the caller removes it), and without a network where
/// `unshare --net` works.
public struct OfficeConverter: Sendable {
    public let limits: OfficeLimits
    /// The limits of the small tools (`unzip`, `ffmpeg` on one image): the ingest's.
    private let ingestLimits: IngestLimits
    private let runner: any ToolRunner
    private let logger: Logger

    public init(
        limits: OfficeLimits = OfficeLimits(), ingestLimits: IngestLimits = IngestLimits(),
        runner: any ToolRunner = SystemToolRunner(), logger: Logger = Logger(label: "podium.office")
    ) {
        self.limits = limits
        self.ingestLimits = ingestLimits
        self.runner = runner
        self.logger = logger
    }

    /// What a conversion gives: the PDF, and for slide decks their outline and notes.
    public struct Converted: Sendable {
        public var pdf: URL
        public var outline: SlideOutline?
    }

    /// Converts `source` (of the sniffed `format`, not PDF) into a PDF in `workDirectory`.
    /// - Throws: ``IngestError`` for every bad input (`encrypted`, `zip_bomb`, `convert_failed`,
    ///   `convert_timeout`, `bad_image`, `too_many_images`, `tool_missing`); `CancellationError`.
    public func convert(_ source: URL, format: DeckFormat, workDirectory: URL) async throws -> Converted {
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        if format == .encryptedOffice { throw IngestError.encryptedDocument }
        var zip: OfficeZip?
        if [.pptx, .docx, .odp, .odt, .key, .imageSet].contains(format) {
            guard let directory = OfficeZip.read(source) else { throw IngestError.conversionFailed }
            try checkExpansion(directory)
            zip = directory
        }
        if format.isImage {
            let images = try await imageFiles(source, format: format, zip: zip, workDirectory: workDirectory)
            let pdf = workDirectory.appendingPathComponent("images.pdf")
            try await ImagePages(runner: runner, limits: ingestLimits).write(images, to: pdf, workDirectory: workDirectory)
            return Converted(pdf: pdf, outline: nil)
        }
        if let zip, [.odp, .odt].contains(format), try await isEncryptedODF(source, zip: zip) {
            throw IngestError.encryptedDocument
        }
        if let zip, zip.entries.contains(where: { $0.flags & 1 != 0 }) { throw IngestError.encryptedDocument }
        let pdf = try await runLibreOffice(source, format: format, workDirectory: workDirectory)
        var outline: SlideOutline?
        if format.hasSlides {
            outline = await readOutline(source, format: format, workDirectory: workDirectory)
        }
        return Converted(pdf: pdf, outline: outline)
    }

    /// Refuses a ZIP that declares too much, too many entries, or one entry expanding like a bomb.
    func checkExpansion(_ zip: OfficeZip) throws {
        if zip.entries.count > limits.maxEntries || zip.expandedBytes > limits.maxExpandedBytes { throw IngestError.zipBomb }
        for entry in zip.entries where entry.uncompressedSize > 1024 * 1024 {
            if entry.uncompressedSize / max(1, entry.compressedSize) > limits.maxCompressionRatio {
                throw IngestError.zipBomb
            }
        }
    }

    /// An OpenDocument file saved with a password lists `encryption-data` in its manifest.
    private func isEncryptedODF(_ source: URL, zip: OfficeZip) async throws -> Bool {
        guard zip.entry("META-INF/manifest.xml") != nil else { return false }
        let result = try await runner.run(
            "unzip", ["-p", source.path, "META-INF/manifest.xml"],
            limits: toolLimits(capturedOutput: 4 * 1024 * 1024))
        if result.timedOut { throw IngestError.timeout(tool: "unzip") }
        return String(decoding: result.stdout, as: UTF8.self).contains("encryption-data")
    }

    private func runLibreOffice(_ source: URL, format: DeckFormat, workDirectory: URL) async throws -> URL {
        let input = workDirectory.appendingPathComponent("in", isDirectory: true)
        let output = workDirectory.appendingPathComponent("out", isDirectory: true)
        let profile = workDirectory.appendingPathComponent("profile", isDirectory: true)
        for directory in [input, output, profile] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let named = input.appendingPathComponent("document.\(format.fileExtension)")
        try FileManager.default.createSymbolicLink(at: named, withDestinationURL: source)
        let converter = try SystemToolRunner.locate(limits.converter)
        let arguments = [
            "-env:UserInstallation=\(profile.absoluteURL.absoluteString)", "--headless", "--invisible", "--nologo",
            "--norestore", "--nolockcheck", "--nodefault", "--convert-to", "pdf", "--outdir", output.path, named.path,
        ]
        let toolLimits = ToolLimits(
            timeout: limits.timeout, memoryBytes: limits.memoryBytes, maxOutputBytes: ingestLimits.maxOutputBytes,
            maxCapturedOutput: 64 * 1024)
        let result: ToolResult
        if limits.isolateNetwork, await Self.canIsolateNetwork(runner: runner) {
            result = try await runner.run("unshare", ["--net", "--", converter.path] + arguments, limits: toolLimits)
        } else {
            result = try await runner.run(converter.path, arguments, limits: toolLimits)
        }
        if result.timedOut { throw IngestError.conversionTimeout(limits.timeout) }
        let pdf = output.appendingPathComponent("document.pdf")
        guard FileManager.default.fileExists(atPath: pdf.path) else {
            logger.notice(
                "the converter made no PDF",
                metadata: [
                    "exit": "\(result.exitCode)", "stdout": "\(String(decoding: result.stdout.prefix(500), as: UTF8.self))",
                    "stderr": "\(result.stderr.prefix(500))",
                ])
            throw IngestError.conversionFailed
        }
        return pdf
    }

    /// Whether `unshare --net` works here (root, or a user namespace the kernel allows): asked once.
    static func canIsolateNetwork(runner: any ToolRunner) async -> Bool {
        if let known = isolation.withLock({ $0 }) { return known }
        var works = false
        if (try? SystemToolRunner.locate("unshare")) != nil {
            let result = try? await runner.run(
                "unshare", ["--net", "--", "true"], limits: ToolLimits(timeout: .seconds(10), maxCapturedOutput: 1024))
            works = result?.succeeded ?? false
        }
        isolation.withLock { $0 = works }
        return works
    }

    private static let isolation = Mutex<Bool?>(nil)

    /// Reads the slide titles and notes; a failure here costs the outline, not the deck.
    private func readOutline(_ source: URL, format: DeckFormat, workDirectory: URL) async -> SlideOutline? {
        let parts = workDirectory.appendingPathComponent("parts", isDirectory: true)
        let patterns = format == .pptx ? SlideOutline.pptxParts : ["content.xml"]
        do {
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            let result = try await runner.run(
                "unzip", ["-qq", "-o", source.path] + patterns + ["-d", parts.path], limits: toolLimits())
            // 11: a pattern matched nothing (a deck without notes has no notesSlides).
            guard !result.timedOut, result.exitCode == 0 || result.exitCode == 11 || result.exitCode == 1 else {
                logger.notice("unzip could not read the slides", metadata: ["exit": "\(result.exitCode)"])
                return nil
            }
            if format == .odp {
                let content = try Data(contentsOf: parts.appendingPathComponent("content.xml"))
                return SlideOutline.odp(content: content)
            }
            var files: [String: Data] = [:]
            let root = parts.standardizedFileURL.path + "/"
            let enumerator = FileManager.default.enumerator(at: parts, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = enumerator?.nextObject() as? URL {
                let path = url.standardizedFileURL.path
                guard path.hasPrefix(root), (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
                else { continue }
                files[String(path.dropFirst(root.count))] = try Data(contentsOf: url)
            }
            return SlideOutline.pptx(parts: files)
        } catch {
            logger.notice("the slides' notes and titles could not be read", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The images of an upload, in order: the file itself, or a ZIP's images sorted by name
    /// (naturally: `2.png` before `10.png`).
    private func imageFiles(_ source: URL, format: DeckFormat, zip: OfficeZip?, workDirectory: URL) async throws
        -> [(name: String, url: URL)]
    {
        guard format == .imageSet, let zip else { return [("image", source)] }
        let names = zip.entries.filter { !$0.isDirectory && !DeckFormat.isJunk($0.name) }.map(\.name)
        if names.count > limits.maxImages { throw IngestError.tooManyImages(limit: limits.maxImages) }
        let directory = workDirectory.appendingPathComponent("images", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let result = try await runner.run(
            "unzip", ["-qq", "-o", source.path, "-x", "__MACOSX/*", "-d", directory.path], limits: toolLimits())
        if result.timedOut { throw IngestError.timeout(tool: "unzip") }
        let root = directory.standardizedFileURL.path + "/"
        return names.sorted(by: Self.naturalOrder).compactMap { name in
            let url = directory.appendingPathComponent(name).standardizedFileURL
            // unzip refuses names that climb out of the directory; whatever is not there is left out.
            guard url.path.hasPrefix(root), FileManager.default.fileExists(atPath: url.path) else { return nil }
            return ((name as NSString).lastPathComponent, url)
        }
    }

    /// Compares names the way people number files: runs of digits by value, the rest by letter
    /// (case-insensitively), so `slide2` comes before `slide10`.
    public static func naturalOrder(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased().unicodeScalars)
        let y = Array(b.lowercased().unicodeScalars)
        var i = 0
        var j = 0
        while i < x.count, j < y.count {
            let digitX = x[i].properties.numericType == .decimal && x[i].isASCII
            let digitY = y[j].properties.numericType == .decimal && y[j].isASCII
            if digitX, digitY {
                var endX = i
                while endX < x.count, x[endX].isASCII, x[endX].properties.numericType == .decimal { endX += 1 }
                var endY = j
                while endY < y.count, y[endY].isASCII, y[endY].properties.numericType == .decimal { endY += 1 }
                let numberX = String(String.UnicodeScalarView(x[i..<endX])).drop { $0 == "0" }
                let numberY = String(String.UnicodeScalarView(y[j..<endY])).drop { $0 == "0" }
                if numberX.count != numberY.count { return numberX.count < numberY.count }
                if numberX != numberY { return numberX < numberY }
                i = endX
                j = endY
            } else {
                if x[i] != y[j] { return x[i].value < y[j].value }
                i += 1
                j += 1
            }
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a < b
    }

    private func toolLimits(capturedOutput: Int = 64 * 1024) -> ToolLimits {
        ToolLimits(
            timeout: ingestLimits.stepTimeout, memoryBytes: ingestLimits.memoryBytes,
            maxOutputBytes: ingestLimits.maxOutputBytes, maxCapturedOutput: capturedOutput)
    }
}
