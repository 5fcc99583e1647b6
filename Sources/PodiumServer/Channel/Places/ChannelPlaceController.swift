import Foundation
import Hummingbird
import PodiumCore
import PodiumStore
import PodiumWire

/// The channel's places (points of interest) and their categories: public reads as in the seed's
/// Appendix B (`/pois…`), searchable and sorted by distance; directions for members only; admin
/// writes on the same paths, deleting by archiving.
struct ChannelPlaceController {
    let store: any ChannelPlaceStore
    let blobs: any BlobStore
    let channel: ChannelConfiguration
    let uploadDirectory: URL
    /// The offline basemap, when one is installed.
    let tiles: TileSet?
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("pois", use: list)
        group.post("pois", use: create)
        group.post("pois/order", use: reorder)
        group.get("pois/categories", use: categories)
        group.post("pois/categories", use: createCategory)
        group.post("pois/categories/order", use: reorderCategories)
        group.get("pois/categories/:id", use: categoryPlaces)
        group.patch("pois/categories/:id", use: updateCategory)
        categoryArchive.addRoutes(to: group, path: "pois/categories")
        group.get("pois/:id", use: show)
        group.patch("pois/:id", use: update)
        placeArchive.addRoutes(to: group, path: "pois")
        group.get("pois/:id/directions", use: directions)
        group.put("pois/:id/image", use: uploadImage)
        group.delete("pois/:id/image", use: deleteImage)
        group.get("map", use: map)
        group.put("map/venue-image", use: uploadVenueImage)
        group.delete("map/venue-image", use: deleteVenueImage)
    }

    /// `GET /channel/map`: the basemap (nil: none installed) and the venue's picture.
    @Sendable func map(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireChannelViewer()
        let venue = try await store.venueImage()
        let basemap = tiles.map {
            ChannelMapResponse.Basemap(
                tileUrl: "/tiles/{z}/{x}/{y}.png", minZoom: $0.info.minZoom, maxZoom: $0.info.maxZoom,
                attribution: $0.info.attribution)
        }
        return try ChannelAPI.respond(
            ChannelMapResponse(basemap: basemap, venueImageUrl: venue?.image.map(DeckResponse.blobURL)),
            lastModified: venue?.updatedAt, to: request, context: context, cache: .revalidate)
    }

    /// `PUT /channel/map/venue-image`: a picture of the venue or city (JPEG, PNG or WebP).
    @Sendable func uploadVenueImage(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let image = try await ChannelImageUpload.receive(request, uploadDirectory: uploadDirectory, blobs: blobs)
        let previous = try await store.venueImage()?.image
        try await store.setVenueImage(image, at: now())
        if let previous, previous != image { try await removeIfUnused(previous) }
        return Response(status: .noContent)
    }

    @Sendable func deleteVenueImage(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        if let previous = try await store.venueImage()?.image {
            try await store.setVenueImage(nil, at: now())
            try await removeIfUnused(previous)
        }
        return Response(status: .noContent)
    }

    // MARK: - Public reads

    /// `GET /channel/pois`: `?search=` (every word, any case or accent), `?category=`, `?near=lat,lon`
    /// (nearest first, with `distanceMeters`), `?limit=&offset=`; admins `?status=all|archived`.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await respondWithPlaces(request, context: context, categoryId: request.uri.queryParameters.get("category"))
    }

    /// `GET /channel/pois/categories/{id}`: the category's places (Appendix B), with the same parameters.
    @Sendable func categoryPlaces(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let filter = try ChannelStatusQuery.filter(request, context: context)
        guard let category = try await store.placeCategory(id: id), Self.shows(category, filter) else {
            throw APIError.notFound("category")
        }
        return try await respondWithPlaces(request, context: context, categoryId: category.id)
    }

    private func respondWithPlaces(_ request: Request, context: AppRequestContext, categoryId: String?) async throws
        -> Response
    {
        let viewer = try context.requireChannelViewer()
        let filter = try ChannelStatusQuery.filter(request, context: context)
        let page = try ChannelAPI.page(request)
        let near = try Self.near(request)
        let search =
            try request.uri.queryParameters.get("search").map { text in
                guard text.count <= 200 else { throw APIError.badRequest("A search has at most 200 characters.") }
                return TextSearch(text)
            } ?? nil
        var places = try await store.places(filter, categoryId: categoryId)
        if filter == .published {
            // A place in an archived category is hidden with it.
            let hidden = Set(try await store.placeCategories(.archived).map(\.id))
            places.removeAll { $0.categoryId.map(hidden.contains) ?? false }
        }
        if let search {
            places = places.filter { search.matches([$0.name, $0.description, $0.address]) }
        }
        var rows: [(place: ChannelPlaceRecord, distance: Double?)] = places.map { place in
            (place, near.flatMap { place.point.map($0.distance) })
        }
        if near != nil {
            // Stable: equal distances keep the admin's order.
            let order = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.place.id, $0) })
            rows.sort { first, second in
                let a = first.distance ?? .infinity
                let b = second.distance ?? .infinity
                return a != b ? a < b : order[first.place.id, default: 0] < order[second.place.id, default: 0]
            }
        }
        let body: [ChannelPlaceResponse] = rows.dropFirst(page.offset).prefix(page.limit).map { row in
            ChannelPlaceResponse(row.place, distance: row.distance, member: viewer.isMember)
        }
        return try ChannelAPI.respond(
            body, lastModified: try await lastChange(), to: request, context: context,
            cache: viewer.isMember || filter != .published ? .personal : .revalidate)
    }

    /// `GET /channel/pois/categories`: by position, each with how many published places it has.
    @Sendable func categories(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let filter = try ChannelStatusQuery.filter(request, context: context)
        let counts = Dictionary(
            grouping: try await store.places(.published, categoryId: nil).compactMap(\.categoryId), by: { $0 }
        ).mapValues(\.count)
        let body = try await store.placeCategories(filter).map {
            ChannelPlaceCategoryResponse($0, placeCount: counts[$0.id] ?? 0)
        }
        _ = viewer
        return try ChannelAPI.respond(
            body, lastModified: try await lastChange(), to: request, context: context,
            cache: filter == .published ? .revalidate : .personal)
    }

    /// `GET /channel/pois/{id}`.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let filter = try ChannelStatusQuery.filter(request, context: context)
        let place = try await visiblePlace(context, filter: filter)
        let near = try Self.near(request)
        let distance = near.flatMap { place.point.map($0.distance) }
        return try ChannelAPI.respond(
            ChannelPlaceResponse(place, distance: distance, member: viewer.isMember), lastModified: place.updatedAt,
            to: request, context: context, cache: viewer.isMember || filter != .published ? .personal : .revalidate)
    }

    /// `GET /channel/pois/{id}/directions`: members get the links; others the membership message.
    @Sendable func directions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireChannelViewer()
        let place = try await visiblePlace(context, filter: .published)
        guard viewer.isMember else { throw ChannelLimitError(.directions, configuration: channel) }
        guard let point = place.point else { throw APIError.notFound("place") }
        return try ChannelAPI.respond(
            Directions(to: point, name: place.name), lastModified: place.updatedAt, to: request, context: context,
            cache: .personal)
    }

    /// `?near=lat,lon`, or 400 saying what coordinates look like.
    static func near(_ request: Request) throws -> GeoPoint? {
        guard let text = request.uri.queryParameters.get("near") else { return nil }
        do {
            return try GeoPoint(parsing: text)
        } catch let error as GeoPointError {
            throw APIError.badRequest(error.description)
        }
    }

    /// The place `:id` if this filter shows it (and, publicly, its category is not archived).
    private func visiblePlace(_ context: AppRequestContext, filter: ChannelItemFilter) async throws -> ChannelPlaceRecord {
        let id = try context.parameters.require("id")
        guard let place = try await store.place(id: id) else { throw APIError.notFound("place") }
        switch filter {
        case .published:
            guard place.publishedAt != nil, place.archivedAt == nil else { throw APIError.notFound("place") }
            if let categoryId = place.categoryId, try await store.placeCategory(id: categoryId)?.archivedAt != nil {
                throw APIError.notFound("place")
            }
        case .all:
            guard place.archivedAt == nil else { throw APIError.notFound("place") }
        case .archived:
            guard place.archivedAt != nil else { throw APIError.notFound("place") }
        }
        return place
    }

    private static func shows(_ category: ChannelPlaceCategoryRecord, _ filter: ChannelItemFilter) -> Bool {
        (filter == .archived) == (category.archivedAt != nil)
    }

    /// The newest change to any place or category, archived ones included: archiving or
    /// unpublishing changes what the lists show, so it must move `Last-Modified` too.
    private func lastChange() async throws -> Date? {
        try await store.placesChangedAt()
    }

    // MARK: - Admin writes

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        ChannelPlaceResponse
    > {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await request.decode(as: ChannelPlaceBody.self, context: context)
        guard body.name != nil, body.latitude != nil, body.longitude != nil else {
            throw APIError.badRequest("A place needs a name, a latitude and a longitude.")
        }
        let date = now()
        let position = (try await store.places(.all, categoryId: nil).map(\.position).max() ?? -1) + 1
        var place = ChannelPlaceRecord(
            id: IDs.make("pl"), categoryId: nil, name: "", latitude: 0, longitude: 0, position: position, updatedAt: date)
        try body.apply(to: &place, now: date)
        try await checkCategory(place.categoryId)
        try await store.insertPlace(place)
        return EditedResponse(status: .created, response: ChannelPlaceResponse(place, distance: nil, member: true))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> ChannelPlaceResponse {
        try ChannelStatusQuery.requireAdmin(context)
        var place = try await existingPlace(context)
        let body = try await request.decode(as: ChannelPlaceBody.self, context: context)
        let date = now()
        try body.apply(to: &place, now: date)
        if case .some(let categoryId) = body.categoryId { try await checkCategory(categoryId) }
        place.updatedAt = date
        try await store.updatePlace(place)
        return ChannelPlaceResponse(place, distance: nil, member: true)
    }

    /// The places' archive; deleting for ever also removes the place's picture, unless another
    /// place (or the venue) shows the same one.
    var placeArchive: ArchivableRoutes<ChannelPlaceRecord> {
        ArchivableRoutes(
            what: "place", now: now, find: { [store] in try await store.place(id: $0) },
            save: { [store] in try await store.updatePlace($0) },
            deleteForEver: { place in
                if let image = try await store.deletePlace(id: place.id) { try await removeIfUnused(image) }
            },
            restored: { place, request, context in
                try ChannelPlaceResponse(place, distance: nil, member: true).response(from: request, context: context)
            })
    }

    /// `POST /channel/pois/order {ids}`: the places not archived, in their new order.
    @Sendable func reorder(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await request.decode(as: ChannelOrderBody.self, context: context)
        let known = Set(try await store.places(.all, categoryId: nil).map(\.id))
        try await store.reorderPlaces(try body.checked(against: known), categories: false, at: now())
        return Response(status: .noContent)
    }

    /// `PUT /channel/pois/{id}/image`: a picture of the place (JPEG, PNG or WebP).
    @Sendable func uploadImage(_ request: Request, context: AppRequestContext) async throws -> ChannelPlaceResponse {
        try ChannelStatusQuery.requireAdmin(context)
        var place = try await existingPlace(context)
        let previous = place.image
        place.image = try await ChannelImageUpload.receive(request, uploadDirectory: uploadDirectory, blobs: blobs)
        place.updatedAt = now()
        try await store.updatePlace(place)
        if let previous, previous != place.image { try await removeIfUnused(previous) }
        return ChannelPlaceResponse(place, distance: nil, member: true)
    }

    @Sendable func deleteImage(_ request: Request, context: AppRequestContext) async throws -> ChannelPlaceResponse {
        try ChannelStatusQuery.requireAdmin(context)
        var place = try await existingPlace(context)
        if let previous = place.image {
            place.image = nil
            place.updatedAt = now()
            try await store.updatePlace(place)
            try await removeIfUnused(previous)
        }
        return ChannelPlaceResponse(place, distance: nil, member: true)
    }

    /// Removes a picture no place and not the venue shows (the same bytes uploaded twice are one blob).
    private func removeIfUnused(_ image: String) async throws {
        let places = try await store.places(.all, categoryId: nil) + store.places(.archived, categoryId: nil)
        let venue = try await store.venueImage()?.image
        if !places.contains(where: { $0.image == image }), venue != image { try? blobs.remove(named: image) }
    }

    private func existingPlace(_ context: AppRequestContext) async throws -> ChannelPlaceRecord {
        guard let place = try await store.place(id: try context.parameters.require("id")) else {
            throw APIError.notFound("place")
        }
        return place
    }

    private func checkCategory(_ id: String?) async throws {
        guard let id else { return }
        guard let category = try await store.placeCategory(id: id), category.archivedAt == nil else {
            throw APIError.badRequest("There is no category \(id.prefix(40)).")
        }
    }

    // MARK: - Categories (admin)

    struct CategoryBody: Decodable {
        let name: String
    }

    @Sendable func createCategory(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        ChannelPlaceCategoryResponse
    > {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await request.decode(as: CategoryBody.self, context: context)
        let name = try ChannelPlaceBody.text(body.name, field: "name", max: 100, required: true)
        let position = (try await store.placeCategories(.all).map(\.position).max() ?? -1) + 1
        let category = ChannelPlaceCategoryRecord(id: IDs.make("pc"), name: name, position: position, updatedAt: now())
        try await store.insertPlaceCategory(category)
        return EditedResponse(status: .created, response: ChannelPlaceCategoryResponse(category, placeCount: 0))
    }

    @Sendable func updateCategory(_ request: Request, context: AppRequestContext) async throws
        -> ChannelPlaceCategoryResponse
    {
        try ChannelStatusQuery.requireAdmin(context)
        var category = try await existingCategory(context)
        let body = try await request.decode(as: CategoryBody.self, context: context)
        category.name = try ChannelPlaceBody.text(body.name, field: "name", max: 100, required: true)
        category.updatedAt = now()
        try await store.updatePlaceCategory(category)
        return ChannelPlaceCategoryResponse(category, placeCount: 0)
    }

    /// The categories' archive (an archived category hides its places from public reads).
    var categoryArchive: ArchivableRoutes<ChannelPlaceCategoryRecord> {
        ArchivableRoutes(
            what: "category", now: now, find: { [store] in try await store.placeCategory(id: $0) },
            save: { [store] in try await store.updatePlaceCategory($0) },
            deleteForEver: { [store] in try await store.deletePlaceCategory(id: $0.id) },
            restored: { category, request, context in
                try ChannelPlaceCategoryResponse(category, placeCount: 0).response(from: request, context: context)
            })
    }

    @Sendable func reorderCategories(_ request: Request, context: AppRequestContext) async throws -> Response {
        try ChannelStatusQuery.requireAdmin(context)
        let body = try await request.decode(as: ChannelOrderBody.self, context: context)
        let known = Set(try await store.placeCategories(.all).map(\.id))
        try await store.reorderPlaces(try body.checked(against: known), categories: true, at: now())
        return Response(status: .noContent)
    }

    private func existingCategory(_ context: AppRequestContext) async throws -> ChannelPlaceCategoryRecord {
        guard let category = try await store.placeCategory(id: try context.parameters.require("id")) else {
            throw APIError.notFound("category")
        }
        return category
    }
}
