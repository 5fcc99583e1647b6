import Foundation

/// How every socket (live, storyboard) reads a client's text message: the one place a message
/// that is not a command the socket knows becomes a `bad_message` error, and the one place that
/// error learns the id of the command it refuses.
///
/// A client waits for each command's `ack` or `error` by its id; a refusal without the id would
/// leave it waiting until its own timeout. So when the message is a JSON object whose `id` is a
/// valid command id for the socket, the error carries it even though the rest of the message
/// could not be understood (an unknown `type`, a missing or mistyped field). When no id can be
/// read (not JSON, not an object, an `id` that is not a string, or one the socket would refuse
/// anyway), the error's id is null.
enum ClientText {
    /// A message that is not one the socket understands.
    struct Undecodable: Error {
        /// The refused command's id, when it could be read (see ``ClientText``).
        let id: String?
        /// What was wrong, for the error's `message`.
        let reason: String
    }

    /// Decodes `text` as a `Message`.
    /// - Parameter isValidID: the socket's rule for command ids; an id it refuses is not echoed.
    static func decode<Message: Decodable>(
        _ type: Message.Type, from text: String, isValidID: (String) -> Bool
    ) throws(Undecodable) -> Message {
        let data = Data(text.utf8)
        do {
            return try JSONDecoder().decode(Message.self, from: data)
        } catch {
            let id = readableID(in: data).flatMap { isValidID($0) ? $0 : nil }
            throw Undecodable(id: id, reason: LiveConnection.describe(error))
        }
    }

    /// The `id` of a JSON object whose `id` is a string; nil for anything else.
    static func readableID(in data: Data) -> String? {
        (try? JSONDecoder().decode(IDOnly.self, from: data))?.id
    }

    /// Only the `id` of a message, read leniently: a missing or mistyped one is nil.
    private struct IDOnly: Decodable {
        let id: String?

        enum CodingKeys: String, CodingKey { case id }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try? container.decodeIfPresent(String.self, forKey: .id)
        }
    }
}
