/// A viewer identity as the presenter knows it.
public struct ViewerEntry: Codable, Sendable, Equatable {
    /// The private identity (the viewer's cookie). Never sent to presenters: see `publicId`.
    public var id: String
    /// Order of first arrival, from 1.
    public var number: Int
    public var name: String?

    public init(id: String, number: Int, name: String?) {
        self.id = id
        self.number = number
        self.name = name
    }

    /// What the presenter sees: the name, or "Guest n".
    public var displayName: String { name ?? "Guest \(number)" }
    /// The id presenters see: knowing it does not let anyone act as this viewer.
    public var publicId: String { "g\(number)" }
}
