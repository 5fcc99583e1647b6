import Testing

@testable import PodiumServer

/// Random identifiers: their prefix, their length, and every letter of the alphabet at every place
/// (twelve letters come from one 64-bit draw; a slip in that slicing would fix or skip letters).
@Suite struct IDsTests {
    @Test func everyLetterOccursAtEveryPlace() {
        let length = 30
        var seen = Array(repeating: Set<Character>(), count: length)
        // One letter misses one place in 2,000 draws with a chance of (31/32)^2000, about 3e-28.
        for _ in 0..<2000 {
            let id = IDs.make("v", length: length)
            #expect(id.hasPrefix("v_") && id.count == length + 2)
            for (place, letter) in id.dropFirst(2).enumerated() { seen[place].insert(letter) }
        }
        #expect(IDs.alphabet.count == 32)
        for place in 0..<length {
            #expect(seen[place] == Set(IDs.alphabet), "place \(place)")
        }
    }
}
