import Foundation
import Testing

@testable import PodiumMedia

/// Telling uploads apart by their bytes: pure, on bytes and ZIP directories made here.
@Suite("Deck formats by content")
struct DeckFormatTests {
    func write(_ data: Data, as name: String = "upload.bin") throws -> (URL, URL) {
        let directory = try TestSupport.scratchDirectory()
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return (directory, url)
    }

    @Test("PDF, PNG, JPEG and WebP by their magic bytes, whatever the name")
    func magic() throws {
        #expect(DeckFormat.sniff(prefix: Array("%PDF-1.7\n".utf8)) == .pdf)
        #expect(DeckFormat.sniff(prefix: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(DeckFormat.sniff(prefix: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(DeckFormat.sniff(prefix: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(DeckFormat.sniff(prefix: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil)
        #expect(DeckFormat.sniff(prefix: Array("hello".utf8)) == nil)
        let (directory, url) = try write(Data("just text, named .pptx".utf8), as: "slides.pptx")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(DeckFormat.sniff(url) == nil)
    }

    @Test(
        "ZIP containers by what they hold",
        arguments: [
            (["[Content_Types].xml", "ppt/presentation.xml"], DeckFormat?.some(.pptx)),
            (["[Content_Types].xml", "word/document.xml"], .docx),
            (["Index/Document.iwa", "Data/image.png"], .key),
            (["Index.zip", "Metadata/Properties.plist"], .key),
            (["slide10.png", "slide2.JPG", "__MACOSX/._slide2.JPG", "folder/", "x.webp"], .imageSet),
            (["notes.txt", "slide1.png"], nil),
            (["[Content_Types].xml", "xl/workbook.xml"], nil),
        ])
    func zips(names: [String], expected: DeckFormat?) throws {
        let zip = try ZipArchive.stored(names.map { ($0, Data("x".utf8)) })
        let (directory, url) = try write(zip)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(DeckFormat.sniff(url) == expected)
    }

    @Test("OpenDocument by its mimetype entry: presentation and text, not spreadsheets")
    func openDocument() throws {
        for (mimetype, expected) in [
            ("application/vnd.oasis.opendocument.presentation", DeckFormat?.some(.odp)),
            ("application/vnd.oasis.opendocument.text", .odt), ("application/vnd.oasis.opendocument.spreadsheet", nil),
        ] {
            let zip = try ZipArchive.stored([("mimetype", Data(mimetype.utf8)), ("content.xml", Data("<x/>".utf8))])
            let (directory, url) = try write(zip)
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(DeckFormat.sniff(url) == expected, "\(mimetype)")
        }
    }

    @Test("OLE2 compound files by their stream names: PowerPoint, Word, an encrypted OOXML package")
    func ole() throws {
        for (stream, expected) in [
            ("PowerPoint Document", DeckFormat?.some(.ppt)), ("WordDocument", .doc), ("EncryptedPackage", .encryptedOffice),
            ("Workbook", nil),
        ] {
            // The name across the 1 MiB read boundary: names split between two reads are found.
            var bytes = DeckFormat.oleMagic
            bytes += [UInt8](repeating: 0, count: (1 << 20) - 10 - bytes.count)
            bytes += DeckFormat.utf16(stream) + [0, 0]
            let (directory, url) = try write(Data(bytes))
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(DeckFormat.sniff(url) == expected, "\(stream)")
        }
    }

    @Test("a zip bomb is refused by its declared sizes before anything expands it")
    func bombByDeclaredSizes() throws {
        let converter = OfficeConverter(limits: OfficeLimits(maxExpandedBytes: 100 * 1024 * 1024))
        func entry(_ name: String, _ compressed: UInt64, _ size: UInt64) -> OfficeZip.Entry {
            OfficeZip.Entry(
                name: name, method: 8, flags: 0, compressedSize: compressed, uncompressedSize: size, localHeaderOffset: 0)
        }
        // Real decks: XML compresses a few times, images not at all.
        #expect(throws: Never.self) {
            try converter.checkExpansion(
                OfficeZip(entries: [
                    entry("ppt/slides/slide1.xml", 300_000, 4_000_000), entry("media/a.png", 5_000_000, 5_000_010),
                ]))
        }
        #expect(throws: IngestError.zipBomb) {
            try converter.checkExpansion(OfficeZip(entries: [entry("ppt/presentation.xml", 100_000, 200 * 1024 * 1024)]))
        }
        // Under the total, but one entry a thousand times its packed size.
        #expect(throws: IngestError.zipBomb) {
            try converter.checkExpansion(OfficeZip(entries: [entry("ppt/presentation.xml", 20_000, 40 * 1024 * 1024)]))
        }
        #expect(throws: IngestError.zipBomb) {
            try converter.checkExpansion(OfficeZip(entries: (0..<30_000).map { entry("f\($0)", 1, 1) }))
        }
    }

    @Test("ZIP64 sizes and the central directory of a real deck are read")
    func realDirectory() async throws {
        let zip = try #require(OfficeZip.read(try await OfficeCorpus.file("slides.pptx")))
        #expect(zip.entry("ppt/presentation.xml") != nil)
        #expect(zip.entries.count > 20)
        #expect(zip.expandedBytes > 50_000)
    }

    @Test("names sort naturally: slide2 before slide10, case aside")
    func naturalOrder() {
        let names = ["slide10.png", "Slide2.png", "slide1.png", "slide02b.png", "a.png", "slide100.png"]
        #expect(
            names.sorted(by: OfficeConverter.naturalOrder)
                == ["a.png", "slide1.png", "Slide2.png", "slide02b.png", "slide10.png", "slide100.png"])
    }
}

/// Titles and speaker notes read from the XML of real decks that LibreOffice wrote.
@Suite("Slide outline and notes")
struct SlideOutlineTests {
    static let expected = [
        SlideOutline.Slide(title: "Welcome to Podium", notes: "Say hello & smile.\nMention the Wi-Fi code."),
        SlideOutline.Slide(title: "Why decks matter", notes: ""),
        SlideOutline.Slide(title: "Thank you", notes: "Ask for questions.\nÜberraschung: ünïcödé notes."),
    ]

    func parts(of file: URL) async throws -> (URL, [String: Data]) {
        let directory = try TestSupport.scratchDirectory()
        try await OfficeCorpus.run("/usr/bin/unzip", ["-qq", "-o", file.path, "-d", directory.path])
        var parts: [String: Data] = [:]
        let root = directory.standardizedFileURL.path + "/"
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                parts[String(url.standardizedFileURL.path.dropFirst(root.count))] = try Data(contentsOf: url)
            }
        }
        return (directory, parts)
    }

    @Test("PPTX: titles from the title placeholders, notes from the notes slides the slides name")
    func pptx() async throws {
        let (directory, parts) = try await parts(of: try await OfficeCorpus.file("slides.pptx"))
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(SlideOutline.pptx(parts: parts).slides == Self.expected)
    }

    @Test("ODP: title frames and presentation:notes of each page")
    func odp() async throws {
        let (directory, parts) = try await parts(of: try await OfficeCorpus.file("slides.odp"))
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(SlideOutline.odp(content: try #require(parts["content.xml"])).slides == Self.expected)
    }

    @Test("a hidden PPTX slide has no page, so it has no outline entry; odd XML gives an empty outline")
    func hiddenAndOdd() async throws {
        var (directory, parts) = try await parts(of: try await OfficeCorpus.file("slides.pptx"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let slide2 = String(decoding: try #require(parts["ppt/slides/slide2.xml"]), as: UTF8.self)
        parts["ppt/slides/slide2.xml"] = Data(slide2.replacingOccurrences(of: "<p:sld ", with: "<p:sld show=\"0\" ").utf8)
        #expect(SlideOutline.pptx(parts: parts).slides.map(\.title) == ["Welcome to Podium", "Thank you"])
        #expect(SlideOutline.pptx(parts: ["ppt/presentation.xml": Data("<not xml".utf8)]).slides.isEmpty)
        #expect(SlideOutline.odp(content: Data("garbage".utf8)).slides.isEmpty)
    }
}

/// The conversion with the real LibreOffice, one at a time (each starts an office suite).
@Suite("OfficeConverter with LibreOffice", .serialized, .timeLimit(.minutes(5)))
struct OfficeConverterTests {
    let limits = OfficeLimits(timeout: .seconds(60))

    func convert(_ file: URL, limits: OfficeLimits? = nil) async throws -> (URL, OfficeConverter.Converted) {
        let work = try TestSupport.scratchDirectory()
        let format = try #require(DeckFormat.sniff(file))
        do {
            return (
                work, try await OfficeConverter(limits: limits ?? self.limits).convert(file, format: format, workDirectory: work)
            )
        } catch {
            try? FileManager.default.removeItem(at: work)
            throw error
        }
    }

    @Test("a PPTX becomes a 3-page PDF with its titles and notes, and then 3 ingested pages")
    func pptx() async throws {
        let (work, converted) = try await convert(try await OfficeCorpus.file("slides.pptx"))
        defer { try? FileManager.default.removeItem(at: work) }
        #expect(converted.outline?.slides == SlideOutlineTests.expected)
        let document = try await PDFIngester(limits: IngestLimits(parallelism: 2))
            .ingest(pdf: converted.pdf, workDirectory: work.appendingPathComponent("pages")) { _ in }
        #expect(document.pageCount == 3)
        #expect(document.pages[0].text.contains("Welcome to Podium"))
    }

    @Test(
        "ODP, PPT, DOCX and ODT convert to PDF", arguments: ["slides.odp", "slides.ppt", "letter.docx", "letter.odt"])
    func others(name: String) async throws {
        let (work, converted) = try await convert(try await OfficeCorpus.file(name))
        defer { try? FileManager.default.removeItem(at: work) }
        let info = try await PDFIngester(limits: IngestLimits(parallelism: 2))
            .ingest(pdf: converted.pdf, workDirectory: work.appendingPathComponent("pages")) { _ in }
        #expect(info.pageCount == (name.hasPrefix("slides") ? 3 : 2))
        #expect((converted.outline != nil) == (name == "slides.odp"))
    }

    @Test("a password-protected ODP is refused as encrypted before LibreOffice runs")
    func locked() async throws {
        await #expect(throws: IngestError.encryptedDocument) {
            _ = try await convert(try await OfficeCorpus.file("locked.odp"), limits: OfficeLimits(converter: "/bin/false"))
        }
    }

    @Test("a PPTX whose parts are junk fails as convert_failed")
    func corrupt() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = await #expect(throws: IngestError.self) {
            _ = try await convert(try OfficeCorpus.corruptPPTX(in: directory))
        }
        #expect(error?.code == "convert_failed")
    }

    @Test("a real zip bomb is refused from its directory, without expanding it")
    func bomb() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bomb = try await OfficeCorpus.zipBomb(megabytes: 60, in: directory)
        #expect(try FileManager.default.attributesOfItem(atPath: bomb.path)[.size] as? Int ?? 0 < 200_000)
        await #expect(throws: IngestError.zipBomb) {
            _ = try await convert(bomb, limits: OfficeLimits(converter: "/bin/false", maxExpandedBytes: 50 * 1024 * 1024))
        }
        // Under the total limit, the ratio alone gives it away.
        await #expect(throws: IngestError.zipBomb) {
            _ = try await convert(bomb, limits: OfficeLimits(converter: "/bin/false", maxCompressionRatio: 500))
        }
    }

    @Test("a converter that hangs is killed at its limit with everything it started")
    func hang() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (script, pids) = try OfficeCorpus.hangingConverter(in: directory)
        let started = ContinuousClock.now
        await #expect(throws: IngestError.conversionTimeout(.seconds(1))) {
            _ = try await convert(
                try await OfficeCorpus.file("slides.pptx"), limits: OfficeLimits(converter: script.path, timeout: .seconds(1)))
        }
        #expect(ContinuousClock.now - started < .seconds(20))
        let numbers = try String(contentsOf: pids, encoding: .utf8).split(separator: " ").compactMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try #require(numbers.count == 2)
        // The kill is SIGKILL to the group; give the kernel a moment to finish the children.
        for _ in 0..<50 where !numbers.allSatisfy(OfficeCorpus.isGone) { try await Task.sleep(for: .milliseconds(100)) }
        #expect(numbers.allSatisfy(OfficeCorpus.isGone), "converter processes left running: \(numbers)")
    }

    @Test("a ZIP of PNG, WebP and JPEG images becomes one page per image in natural order")
    func images() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Three images of different sizes, so the pages tell their order.
        var entries: [(name: String, data: Data)] = []
        for (name, size, format) in [
            ("img10.png", "200x100", "png"), ("img2.webp", "100x200", "webp"), ("img1.jpg", "300x300", "mjpeg"),
        ] {
            let file = directory.appendingPathComponent(name)
            try await OfficeCorpus.run(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=\(size)", "-frames:v", "1", "-c:v",
                    format == "png" ? "png" : format == "webp" ? "libwebp" : "mjpeg", "-pix_fmt",
                    format == "png" ? "rgba" : format == "webp" ? "yuv420p" : "yuvj420p", file.path,
                ])
            entries.append((name, try Data(contentsOf: file)))
        }
        let zip = directory.appendingPathComponent("pictures.zip")
        try ZipArchive.stored(entries).write(to: zip)
        #expect(DeckFormat.sniff(zip) == .imageSet)
        let (work, converted) = try await convert(zip)
        defer { try? FileManager.default.removeItem(at: work) }
        let document = try await PDFIngester(limits: IngestLimits(parallelism: 2))
            .ingest(pdf: converted.pdf, workDirectory: work.appendingPathComponent("pages")) { _ in }
        #expect(
            document.pages.map { $0.width > $0.height ? "wide" : $0.width < $0.height ? "tall" : "square" } == [
                "square", "tall", "wide",
            ])
    }

    @Test("a set with a file that is no image fails as bad_image")
    func badImage() async throws {
        let directory = try TestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let zip = directory.appendingPathComponent("pictures.zip")
        try ZipArchive.stored([("a.png", Data("not a png at all".utf8))]).write(to: zip)
        let error = await #expect(throws: IngestError.self) { _ = try await convert(zip) }
        #expect(error?.code == "bad_image")
    }
}
