import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PodiumCore
import PodiumMedia
import PodiumStore
import PodiumWire

/// The channel's radio: the public reads (`GET /api/v1/channel/radios…`, a person's stream URL,
/// the now-playing events) and the admin's writes (stations, tracks, their order).
struct ChannelRadioController {
    let store: any ChannelRadioStore
    let stations: RadioStations
    let listening: RadioListening
    let tokens: StreamTokens
    let jobs: JobQueue
    let blobs: any BlobStore
    let packager: AudioPackager
    let uploadDirectory: URL
    let maxUploadBytes: Int
    let configuration: ChannelConfiguration
    let logger: Logger
    let now: @Sendable () -> Date
    /// How the event stream waits (tests pass one that a test clock drives).
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("radios", use: list)
        group.post("radios", use: create)
        group.post("radios/order", use: reorderStations)
        group.get("radios/:id", use: show)
        group.patch("radios/:id", use: update)
        archive.addRoutes(to: group, path: "radios")
        group.get("radios/:id/stream", use: stream)
        group.get("radios/:id/events", use: events)
        group.get("radios/:id/tracks", use: tracks)
        group.post("radios/:id/tracks", use: upload)
        group.put("radios/:id/tracks/order", use: reorderTracks)
        group.patch("radios/:id/tracks/:trackId", use: updateTrack)
        group.delete("radios/:id/tracks/:trackId", use: deleteTrack)
    }

    // MARK: Public reads

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let status = try Self.status(request, viewer: viewer)
        let page = try ChannelAPI.page(request)
        let date = now()
        let chosen = try await store.radios().compactMap { stations.station($0.id) }.filter { status.includes($0.record) }
        let bodies = chosen.dropFirst(page.offset).prefix(page.limit).map { RadioBody($0, at: date) }
        return try ChannelAPI.respond(
            Array(bodies), lastModified: bodies.map(\.lastModified).max(), to: request, context: context,
            cache: status == .published ? .revalidate : .personal)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let station = try visibleStation(context)
        let body = RadioBody(station, at: now())
        let admin = try context.requireChannelViewer().isAdmin
        return try ChannelAPI.respond(
            body, lastModified: body.lastModified, to: request, context: context, cache: admin ? .personal : .revalidate)
    }

    /// The person's own stream URL, or the membership message once today's allowance is spent.
    @Sendable func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let station = try visibleStation(context)
        var remaining: Double?
        if !viewer.isMember {
            let left = try await listening.remaining(viewer.key, pool: RadioListening.pool(context))
            guard left > 0 else { throw ChannelLimitError(.radioDaily, configuration: configuration) }
            remaining = left
        }
        let (token, expiresAt) = tokens.issue(resource: "\(RadioStreamSource.kind):\(station.record.id)", viewerKey: viewer.key)
        let body = RadioStreamBody(
            url: "/stream/\(token)/live.m3u8", expiresAt: expiresAt, remainingToday: remaining,
            resetsAt: remaining == nil ? nil : listening.resetsAt())
        return try ChannelAPI.respond(body, lastModified: nil, to: request, context: context, cache: .personal)
    }

    /// Server-Sent Events: `nowplaying` at once and at every track change (docs/protocol.md).
    @Sendable func events(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let station = try visibleStation(context)
        let feed = RadioEvents(
            stationId: station.record.id, viewer: viewer, pool: RadioListening.pool(context), stations: stations,
            listening: listening, now: now, sleep: sleep)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in try await feed.run(&writer) })
    }

    // MARK: Admin: stations

    struct StationInput: Decodable {
        var name: String?
        var description: String?
        var website: String??
        var published: Bool?
        var position: Int?
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let input = try await request.decode(as: StationInput.self, context: context)
        let name = try Self.clean(input.name, what: "A station needs a name.")
        let date = now()
        let position = (try await store.radios().map(\.position).max() ?? -1) + 1
        let radio = ChannelRadioRecord(
            id: IDs.make("r"), name: name, description: input.description ?? "",
            website: try Self.website(input.website ?? nil), position: position,
            publishedAt: input.published == true ? date : nil, createdAt: date, updatedAt: date)
        try await store.insertRadio(radio)
        try await stations.reload(radio.id)
        return try written(radio.id, status: .created)
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        var radio = try await storedRadio(context)
        let input = try await request.decode(as: StationInput.self, context: context)
        if let name = input.name { radio.name = try Self.clean(name, what: "A station needs a name.") }
        if let description = input.description { radio.description = description }
        if let website = input.website { radio.website = try Self.website(website) }
        if let position = input.position { radio.position = position }
        if let published = input.published { radio.publishedAt = published ? radio.publishedAt ?? now() : nil }
        radio.updatedAt = now()
        try await store.updateRadio(radio)
        try await stations.reload(radio.id)
        return try written(radio.id)
    }

    /// The stations' archive (an archived station goes off the air); deleting one for ever also
    /// deletes its tracks and their files. Archiving answers the station, as restoring does.
    var archive: ArchivableRoutes<ChannelRadioRecord> {
        ArchivableRoutes(
            what: "radio", now: now, find: { [store] in try await store.radio(id: $0) },
            save: { [store] in try await store.updateRadio($0) },
            deleteForEver: { [store, blobs] radio in
                for name in try await store.deleteRadio(id: radio.id) { try? blobs.remove(named: name) }
            },
            restored: { radio, _, _ in try written(radio.id) },
            archived: { radio, _, _ in try written(radio.id) },
            afterChange: { [stations] in try await stations.reload($0) })
    }

    struct Order: Decodable { var ids: [String] }

    @Sendable func reorderStations(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let order = try await request.decode(as: Order.self, context: context)
        let radios = try await store.radios()
        guard Set(order.ids) == Set(radios.map(\.id)), order.ids.count == radios.count else {
            throw APIError.badRequest("ids must list every station once.")
        }
        let date = now()
        for var radio in radios {
            radio.position = order.ids.firstIndex(of: radio.id)!
            radio.updatedAt = date
            try await store.updateRadio(radio)
            try await stations.reload(radio.id)
        }
        return Response(status: .noContent)
    }

    // MARK: Admin: tracks

    @Sendable func tracks(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let radio = try await storedRadio(context)
        let bodies = try await store.radioTracks(radioId: radio.id).map {
            RadioTrackBody(record: $0, progress: jobs.progress(subjectId: $0.id))
        }
        return try ChannelAPI.respond(bodies, lastModified: nil, to: request, context: context, cache: .personal)
    }

    /// Takes an uploaded sound file (`?title=&artist=`), refuses what is not audio with its reason
    /// (leaving nothing behind), and queues its packaging (a `radio-track` job).
    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> Response {
        let admin = try ChannelStatusQuery.requireAdmin(context)
        let radio = try await storedRadio(context)
        let received = try await Upload.receive(request, into: uploadDirectory, limit: maxUploadBytes)
        defer { try? FileManager.default.removeItem(at: received.file) }
        do {
            _ = try await packager.check(received.file)
        } catch let error as IngestError {
            throw error.code == "not_audio"
                ? APIError(.unsupportedMediaType, code: error.code, message: error.message) : VideoController.refusal(error)
        }
        let query = request.uri.queryParameters
        let title =
            (query.get("title") ?? received.filename.map(VideoController.title(fromFilename:)))
            .map(DeckController.cleanTitle).flatMap { $0.isEmpty ? nil : $0 } ?? "Untitled track"
        let source = try blobs.put(fileAt: received.file, fileExtension: "audio")
        let date = now()
        let position = (try await store.radioTracks(radioId: radio.id).map(\.position).max() ?? -1) + 1
        let track = ChannelRadioTrackRecord(
            id: IDs.make("t"), radioId: radio.id, position: position, title: title,
            artist: DeckController.cleanTitle(query.get("artist") ?? ""), status: .queued, sourceBlob: source,
            sourceBytes: received.bytes, createdAt: date, updatedAt: date)
        do {
            try await store.insertRadioTrack(track)
            let job = try await jobs.enqueue(
                kind: RadioTrackRequest.kind, subjectId: track.id, ownerId: admin.id, payload: RadioTrackRequest())
            return try Self.json(
                UploadedResponse(item: RadioTrackBody(record: track, progress: nil), jobId: job.id), status: .created)
        } catch {
            for name in (try? await store.deleteRadioTrack(id: track.id)) ?? [source] { try? blobs.remove(named: name) }
            throw error
        }
    }

    struct TrackInput: Decodable {
        var title: String?
        var artist: String?
        var website: String??
    }

    @Sendable func updateTrack(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        var track = try await storedTrack(context)
        let input = try await request.decode(as: TrackInput.self, context: context)
        if let title = input.title { track.title = try Self.clean(title, what: "A track needs a title.") }
        if let artist = input.artist { track.artist = DeckController.cleanTitle(artist) }
        if let website = input.website { track.website = try Self.website(website) }
        track.updatedAt = now()
        try await store.updateRadioTrack(track)
        try await touch(track.radioId)
        return try Self.json(RadioTrackBody(record: track, progress: jobs.progress(subjectId: track.id)))
    }

    @Sendable func deleteTrack(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let track = try await storedTrack(context)
        _ = try await store.deleteRadioTrack(id: track.id)
        try await touch(track.radioId)
        // The re-anchored schedule still lists the track's last segments for a window or so (its
        // lead-in): its files go once no playlist can name them.
        let (store, blobs, logger, names) = (store, blobs, logger, track.blobNames)
        Task {
            try? await Task.sleep(for: .seconds(120))
            do {
                for name in try await store.radioBlobsUnused(names, exceptTrack: track.id) { try blobs.remove(named: name) }
            } catch {
                logger.error("radio track \(track.id): could not remove its files: \(error)")
            }
        }
        return Response(status: .noContent)
    }

    @Sendable func reorderTracks(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let radio = try await storedRadio(context)
        let order = try await request.decode(as: Order.self, context: context)
        let existing = try await store.radioTracks(radioId: radio.id).map(\.id)
        guard Set(order.ids) == Set(existing), order.ids.count == existing.count else {
            throw APIError.badRequest("ids must list every track of the station once.")
        }
        try await store.reorderRadioTracks(radioId: radio.id, ids: order.ids, at: now())
        try await touch(radio.id)
        return Response(status: .noContent)
    }

    // MARK: Helpers

    /// Which stations a list shows: the audience sees the published ones; an admin may ask for all
    /// or the archived (``ChannelItemFilter/includes(_:)``).
    typealias Status = ChannelItemFilter

    static func status(_ request: Request, viewer: ChannelViewer) throws -> Status {
        try ChannelStatusQuery.filter(request, user: viewer.user)
    }

    /// The station of the path as the asker may see it: on air, or any for an admin.
    private func visibleStation(_ context: AppRequestContext) throws -> RadioStations.Station {
        let viewer = try context.requireChannelViewer()
        guard let station = stations.station(try context.parameters.require("id")),
            RadioStreamSource.isOnAir(station.record) || viewer.isAdmin
        else { throw APIError.notFound("radio") }
        return station
    }

    private func storedRadio(_ context: AppRequestContext) async throws -> ChannelRadioRecord {
        guard let radio = try await store.radio(id: try context.parameters.require("id")) else {
            throw APIError.notFound("radio")
        }
        return radio
    }

    private func storedTrack(_ context: AppRequestContext) async throws -> ChannelRadioTrackRecord {
        let radio = try await storedRadio(context)
        guard let track = try await store.radioTrack(id: try context.parameters.require("trackId")), track.radioId == radio.id
        else { throw APIError.notFound("track") }
        return track
    }

    /// A station's tracks changed: its `updatedAt` moves (Last-Modified) and its schedule follows.
    private func touch(_ radioId: String) async throws {
        if var radio = try await store.radio(id: radioId) {
            radio.updatedAt = now()
            try await store.updateRadio(radio)
        }
        try await stations.reload(radioId)
    }

    private func written(_ id: String, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let station = stations.station(id) else { throw APIError.notFound("radio") }
        return try Self.json(RadioBody(station, at: now()), status: status)
    }

    static func json(_ body: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try Frames.encoder.encode(body))))
    }

    static func clean(_ text: String?, what: String) throws -> String {
        let cleaned = DeckController.cleanTitle(text ?? "")
        guard !cleaned.isEmpty else { throw APIError.badRequest(what) }
        return cleaned
    }

    /// An http(s) address or nothing: a link the page opens must not run script.
    static func website(_ text: String?) throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host?.isEmpty == false
        else { throw APIError.badRequest("website must be an http or https address.") }
        return text
    }
}

extension ChannelItemFilter {
    /// Whether a station is in the list: the audience's are those on the air.
    func includes(_ radio: ChannelRadioRecord) -> Bool {
        switch self {
        case .published: RadioStreamSource.isOnAir(radio)
        case .all: radio.archivedAt == nil
        case .archived: radio.archivedAt != nil
        }
    }
}
