import Foundation

/// Which of a channel's items a read returns: the public ones (published, not archived), every
/// one not archived (the CMS's tables), or the archive alone (deleted items, for restore).
public enum ChannelItemFilter: String, Sendable, Codable, CaseIterable {
    case published
    case all
    case archived
}

/// A category of places (a museum, a restaurant, a church).
public struct ChannelPlaceCategoryRecord: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    /// Order in lists, smallest first.
    public var position: Int
    public var updatedAt: Date
    /// Set when an admin deleted it: gone from public reads, restorable.
    public var archivedAt: Date?

    public init(id: String, name: String, position: Int, updatedAt: Date, archivedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.position = position
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}

/// A point of interest on the channel's map.
public struct ChannelPlaceRecord: Sendable, Equatable, Codable {
    public var id: String
    /// Its category; nil when it has none (or the category was deleted for ever).
    public var categoryId: String?
    public var name: String
    public var description: String
    /// Typed by an admin (no geocoding): the address people read.
    public var address: String
    public var phone: String
    public var website: String
    /// Free text, as the place writes it ("Tue–Sun 10:00–18:00").
    public var openingHours: String
    public var latitude: Double
    public var longitude: Double
    /// A picture of the place: a blob name, nil for none.
    public var image: String?
    public var position: Int
    /// Nil until published.
    public var publishedAt: Date?
    public var updatedAt: Date
    public var archivedAt: Date?

    public init(
        id: String, categoryId: String?, name: String, description: String = "", address: String = "",
        phone: String = "", website: String = "", openingHours: String = "", latitude: Double, longitude: Double,
        image: String? = nil, position: Int, publishedAt: Date? = nil, updatedAt: Date, archivedAt: Date? = nil
    ) {
        self.id = id
        self.categoryId = categoryId
        self.name = name
        self.description = description
        self.address = address
        self.phone = phone
        self.website = website
        self.openingHours = openingHours
        self.latitude = latitude
        self.longitude = longitude
        self.image = image
        self.position = position
        self.publishedAt = publishedAt
        self.updatedAt = updatedAt
        self.archivedAt = archivedAt
    }
}
