import Foundation
import Hummingbird
import NIOCore
import PodiumCore
import PodiumMedia
import PodiumStore

extension SessionController {
    /// One page of an export: a slide with its ink, or a page standing for a clip shown.
    enum ExportPage {
        case slide(ShownPage)
        case clip(ClipsShown.Clip)
    }

    /// The slides in their order, each clip put where it was shown: after the
    /// ``ClipLog/Showing/afterPages`` first slides (clips at one place keep the order shown).
    static func sequence(slides: [ShownPage], clips: [ClipsShown.Clip]) -> [ExportPage] {
        var waiting = clips.enumerated().sorted {
            ($0.element.showing.afterPages, $0.offset) < ($1.element.showing.afterPages, $1.offset)
        }
        .map(\.element)[...]
        var pages: [ExportPage] = []
        for (index, slide) in slides.enumerated() {
            while let clip = waiting.first, clip.showing.afterPages <= index {
                pages.append(.clip(clip))
                waiting = waiting.dropFirst()
            }
            pages.append(.slide(slide))
        }
        return pages + waiting.map(ExportPage.clip)
    }

    /// The deck (a room: every page shown, in the order first shown, from every deck) with the
    /// ink drawn in as vector paths, and a page with the poster frame of each clip shown where it
    /// was shown.
    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let record = try await record(context)
        try await requireDownloadAllowed(record, context: context)
        guard let session = try await hub.session(code: record.code) else { throw APIError.notFound("session") }
        let state = await session.state
        let snapshot = state.snapshot
        let clips = try await ClipsShown(state.clips, store: videoStore).clips
        let slides: [ShownPage]
        if let room = snapshot.room {
            guard !room.shown.isEmpty || !clips.isEmpty else {
                throw APIError(.conflict, code: "nothing_shown", message: "Nothing has been shown in this room yet.")
            }
            slides = room.shown
        } else {
            guard let deckId = record.deckId, let deck = try await deckStore.deck(id: deckId) else {
                throw APIError.notFound("deck")
            }
            slides = (1...max(1, deck.pageCount)).map { ShownPage(deck: deck.id, page: $0) }
        }
        var decks: [String: (record: DeckRecord, source: URL, pages: [Int: PageRecord])] = [:]
        for deckId in Set(slides.map(\.deck)) {
            guard let deck = try await deckStore.deck(id: deckId), let source = blobs.file(named: deck.sourceHash) else {
                throw APIError.notFound("deck")
            }
            let pages = try await deckStore.pages(deckId: deckId)
            decks[deckId] = (deck, source, Dictionary(uniqueKeysWithValues: pages.map { ($0.number, $0) }))
        }
        let sequence = Self.sequence(slides: slides, clips: clips)
        let slideSize = { (shown: ShownPage) -> (width: Double, height: Double) in
            let page = decks[shown.deck]?.pages[shown.page]
            return (page?.width ?? 612, page?.height ?? 792)
        }
        let sizes = Self.pageSizes(sequence, slideSize: slideSize)
        let inkDeck: (ShownPage) -> String? = { snapshot.room == nil ? nil : $0.deck }
        let overlayPages = zip(sequence, sizes).map { page, size in
            guard case .slide(let shown) = page else { return (width: size.width, height: size.height, ink: [InkPath]()) }
            return (
                width: size.width, height: size.height,
                ink: snapshot.strokes.filter { $0.page == shown.page && $0.deck == inkDeck(shown) }.map(Self.inkPath)
            )
        }
        let work = workDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let overlay = work.appendingPathComponent("overlay.pdf")
        let clipPages = work.appendingPathComponent("clips.pdf")
        let combined = work.appendingPathComponent("combined.pdf")
        let output = work.appendingPathComponent("export.pdf")
        try AnnotationOverlay.pdf(pages: overlayPages).write(to: overlay)
        var sources: [(source: URL, page: Int)] = []
        var clipPageList: [ClipPage] = []
        for (page, size) in zip(sequence, sizes) {
            switch page {
            case .slide(let shown):
                sources.append((decks[shown.deck]!.source, shown.page))
            case .clip(let clip):
                clipPageList.append(clipPage(clip, size: size, startedAt: record.createdAt))
                sources.append((clipPages, clipPageList.count))
            }
        }
        do {
            // A session's own deck without clips is laid over as it is (its links and outline kept).
            var base = slides.first.flatMap { decks[$0.deck]?.source } ?? clipPages
            if snapshot.room != nil || !clipPageList.isEmpty {
                try ClipPages.pdf(pages: clipPageList).write(to: clipPages)
                try await PDFExporter().collect(sources, writingTo: combined)
                base = combined
            }
            try await PDFExporter().overlay(overlay, on: base, writingTo: output)
        } catch let error as IngestError {
            throw APIError(.internalServerError, code: error.code, message: error.message)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/pdf"
        let title =
            snapshot.room == nil ? (slides.first.flatMap { decks[$0.deck]?.record.title } ?? "deck") : (record.title ?? "room")
        let safeName = title.filter { $0.isLetter || $0.isNumber || " -_.".contains($0) }
        headers[.contentDisposition] = "attachment; filename=\"\(safeName.isEmpty ? "deck" : safeName) (annotated).pdf\""
        // Read before the deferred clean-up removes the file.
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try Data(contentsOf: output))))
    }

    /// Each page's size: a slide its own; a clip's page that of the slide before it (or after it),
    /// so the document prints evenly; 16:9 when there is no slide at all.
    static func pageSizes(_ sequence: [ExportPage], slideSize: (ShownPage) -> (width: Double, height: Double))
        -> [(width: Double, height: Double)]
    {
        let own = sequence.map { page -> (width: Double, height: Double)? in
            guard case .slide(let shown) = page else { return nil }
            return slideSize(shown)
        }
        return own.indices.map { index in
            if let size = own[index] { return size }
            return own[..<index].compactMap { $0 }.last ?? own[index...].compactMap { $0 }.first ?? (width: 720, height: 405)
        }
    }

    /// A clip's page: its poster (when the library still has it), its title and when it was shown.
    func clipPage(_ clip: ClipsShown.Clip, size: (width: Double, height: Double), startedAt: Date) -> ClipPage {
        let poster = clip.video?.poster.flatMap { blobs.file(named: $0) }.flatMap { try? Data(contentsOf: $0) }
        let showing = clip.showing
        let shownAt = Date(timeIntervalSince1970: showing.shownAt)
        let time = Self.utcTime(shownAt)
        var detail = "Shown at \(time) UTC, \(Self.minutes(shownAt.timeIntervalSince(startedAt))) into the session"
        let until = showing.hiddenAt ?? now().timeIntervalSince1970
        detail += " · on stage \(Self.minutes(showing.onStage(until: until)))"
        let played = Self.minutes(showing.played(until: until))
        detail += " · \(played)" + (showing.duration.map { " of \(Self.minutes($0))" } ?? "") + " played"
        return ClipPage(width: size.width, height: size.height, poster: poster, title: clip.title, detail: detail)
    }

    /// A clip page's time of day: UTC, as the server has no reader's time zone to go by.
    static func utcTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// "1 h 02 min", "3 min 05 s", "42 s".
    static func minutes(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded()))
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        if hours > 0 { return "\(hours) h \(String(format: "%02d", minutes)) min" }
        if minutes > 0 { return "\(minutes) min \(String(format: "%02d", rest)) s" }
        return "\(rest) s"
    }

    static func inkPath(_ stroke: Stroke) -> InkPath {
        let hex = Int(stroke.color.dropFirst(), radix: 16) ?? 0
        return InkPath(
            points: stroke.points.map { (x: $0[0], y: $0[1], pressure: $0.count > 2 ? $0[2] : 0.5) },
            color: (Double((hex >> 16) & 0xFF) / 255, Double((hex >> 8) & 0xFF) / 255, Double(hex & 0xFF) / 255),
            width: stroke.tool == .highlighter ? stroke.width * 3 : stroke.width, opacity: stroke.tool == .highlighter ? 0.35 : 1)
    }
}
