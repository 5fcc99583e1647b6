/// Shot numbers: "1", "2", "3"… in story order; a copy of "2" is "2A", then "2B"… ("Z" is
/// followed by "AA"). Mirrored by `nextShotNumber` and `copyNumber` in `Public/app/storyboard/model.js`.
public enum ShotNumber {
    /// The number a new shot gets: one more than the greatest leading number of any shot ("1" when none).
    public static func next(in storyboard: Storyboard) -> String {
        String((storyboard.scenes.flatMap(\.shots).compactMap { leadingInteger($0.number) }.max() ?? 0) + 1)
    }

    /// The number of a copy of a shot numbered `number`: its base ("2" of "2" or "2B") with the
    /// letter after the last one any shot of that base has.
    public static func copy(of number: String, in storyboard: Storyboard) -> String {
        let base = String(number.unicodeScalars.reversed().drop(while: isLetter).reversed().map(Character.init))
        var highest = 0
        for shot in storyboard.scenes.flatMap(\.shots) where shot.number.hasPrefix(base) {
            let suffix = String(shot.number.unicodeScalars.dropFirst(base.unicodeScalars.count).map(Character.init))
            if let value = letterValue(suffix) { highest = max(highest, value) }
        }
        return base + letters(highest + 1)
    }

    /// 1, 2, 3… for every shot in story order.
    public static func renumbered(_ storyboard: Storyboard) -> [String] {
        (0..<storyboard.shotCount).map { String($0 + 1) }
    }

    /// The digits a number starts with, as a number ("12B" → 12); nil when it starts otherwise.
    static func leadingInteger(_ number: String) -> Int? {
        let digits = number.unicodeScalars.prefix { ("0"..."9").contains($0) }
        return digits.isEmpty ? nil : Int(String(String.UnicodeScalarView(digits)))
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("A"..."Z").contains(scalar) }

    /// "A" → 1 … "Z" → 26, "AA" → 27; nil unless 1 to 4 capital letters.
    static func letterValue(_ text: String) -> Int? {
        guard (1...4).contains(text.unicodeScalars.count), text.unicodeScalars.allSatisfy(isLetter) else { return nil }
        return text.unicodeScalars.reduce(0) { $0 * 26 + Int($1.value - 64) }
    }

    static func letters(_ value: Int) -> String {
        var value = value
        var scalars: [Unicode.Scalar] = []
        while value > 0 {
            value -= 1
            scalars.append(Unicode.Scalar(UInt8(65 + value % 26)))
            value /= 26
        }
        return String(String.UnicodeScalarView(scalars.reversed()))
    }
}
