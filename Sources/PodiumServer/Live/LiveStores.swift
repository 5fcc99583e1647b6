import PodiumStore

/// The parts of the store the live sessions use (``LiveHub`` and its ``LiveSession``s), each its
/// own value: a test wraps the one it intercepts (appends that wait, a visit held halfway, reads of
/// the audience counted) and the others stay the real store.
struct LiveStores: Sendable {
    /// Sessions' records and their durable events.
    var sessions: any SessionStore
    /// What the audience contributed: answers, questions, votes, viewers.
    var audience: any InteractionStore
    /// Who was connected when (a viewer's visits).
    var attendance: any NotesAndAttendanceStore
    /// The presenter's name, for a session's info.
    var users: any UserStore
    /// A session's deck and its pages.
    var decks: any DeckStore
    /// The pointer's side log while the presenter records (replay).
    var replay: any ReplayStore

    init(_ stores: Stores) {
        sessions = stores.sessions
        audience = stores.interaction
        attendance = stores.notes
        users = stores.users
        decks = stores.decks
        replay = stores.replay
    }
}
