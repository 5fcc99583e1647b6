import Foundation

/// An optional encoded as `null` when empty, not left out as synthesized `Encodable` does: the
/// channel's API sends every field it documents (Appendix B's clients read `null`).
@propertyWrapper
struct NullEncoded<Value: Encodable & Sendable & Equatable>: Encodable, Sendable, Equatable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
