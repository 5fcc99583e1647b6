import Foundation
import Testing

/// The check every fixture test shares: the committed file (under Tests/Fixtures, read by a JS
/// test in Tests/JS) must be what the core produces now, or, with `PODIUM_UPDATE_FIXTURES=1`, is
/// written anew from it.
func expectCommittedFixture(
    _ data: Data, at fixture: URL, suite: String, jsCheck: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    if ProcessInfo.processInfo.environment["PODIUM_UPDATE_FIXTURES"] == "1" {
        try data.write(to: fixture)
        return
    }
    let committed = try? Data(contentsOf: fixture)
    #expect(
        committed == data,
        """
        Tests/Fixtures/\(fixture.lastPathComponent) differs from what the core produces. If the change is meant, \
        write it anew with `PODIUM_UPDATE_FIXTURES=1 swift test --filter \(suite)`, then run `make test-js` \
        to check that \(jsCheck) agrees.
        """, sourceLocation: sourceLocation)
}
