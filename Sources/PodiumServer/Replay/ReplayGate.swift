import Foundation
import HTTPTypes
import Hummingbird
import PodiumCore
import PodiumStore

/// Who may watch a session's replay and listen to its takes: one rule for the timeline and the
/// recordings' files (one counter of wrong passcodes for both, so a guesser gets no second set
/// of tries by asking for the audio).
///
/// The session's host always; anyone with the link once the host allows it (`replay: "link"`),
/// the passcode then as for joining, in `X-Podium-Passcode`.
struct ReplayGate: Sendable {
    let accounts: Accounts
    /// The session's host: its presenter, an admin, or a co-host.
    let hosts: SessionHosts
    /// Wrong passcodes per client and session: guesses are slowed as on the live socket.
    let passcodeGuesses = AttemptLimiter(limit: 10, window: 60)
    let now: @Sendable () -> Date

    /// Whether `context`'s user may watch `record`'s replay: true for its host, false for anyone
    /// else allowed; throws otherwise.
    func mayWatch(_ record: SessionRecord, request: Request, context: AppRequestContext) async throws -> Bool {
        if try await hosts.isHost(context.user, of: record) { return true }
        guard record.replay == .link else {
            throw APIError(
                .forbidden, code: "forbidden",
                message: record.isRoom
                    ? "The moderator has not shared this room's replay." : "The presenter has not shared this replay.")
        }
        guard let hash = record.passcodeHash else { return false }
        guard let passcode = request.headers[.podiumPasscode], !passcode.isEmpty else {
            throw APIError(.unauthorized, code: "passcode_required", message: "This session has a passcode.")
        }
        let keys = ["\(record.id)|\(context.clientKey)"]
        guard passcodeGuesses.allows(keys, now: now()) else {
            throw APIError(.tooManyRequests, code: "rate_limited", message: "Too many wrong passcodes: wait a minute.")
        }
        guard try await accounts.verify(passcode, against: hash) else {
            passcodeGuesses.recordFailure(keys, now: now())
            throw APIError(.forbidden, code: "passcode_wrong", message: "That passcode is not right.")
        }
        return false
    }
}

extension HTTPField.Name {
    /// A session's passcode, for a replay shared with the link.
    static let podiumPasscode = HTTPField.Name("X-Podium-Passcode")!
}
