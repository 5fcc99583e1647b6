/// Short codes people read off a projector and type on a phone.
///
/// The alphabet leaves out characters that look alike (0/O, 1/I/L) so a code read from the back
/// of a hall is typed right the first time.
public enum JoinCode {
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    public static let length = 6

    /// A new random code.
    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// The canonical form of what someone typed (upper case, spaces and dashes dropped), or nil
    /// when it cannot be a code.
    public static func normalize(_ typed: String) -> String? {
        let cleaned = typed.uppercased().filter { $0 != " " && $0 != "-" }
        guard cleaned.count == length, cleaned.allSatisfy(alphabet.contains) else { return nil }
        return cleaned
    }
}
