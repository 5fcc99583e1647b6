import Hummingbird
import PodiumStore

/// Live sessions over REST: starting, ending, listing and exporting them, their reports, and the
/// question banks a presenter sends polls from. The sockets are the ``LiveFeature``'s.
struct SessionsFeature: ServerFeature {
    let questionBanks: QuestionBankController
    let reports: ReportController
    let sessions: SessionController

    /// - Parameter joinBase: how join links and QR codes are written (the public URL, or this
    ///   machine's addresses).
    init(_ platform: Platform, joinBase: JoinURLBuilder) {
        questionBanks = QuestionBankController(
            store: platform.stores.questionBank, deckStore: platform.stores.decks, now: platform.now,
            hosts: SessionHosts(store: platform.stores.sessions, courses: CourseTeachers(platform)))
        reports = ReportController(
            store: platform.stores.sessions, notesStore: platform.stores.notes, videoStore: platform.stores.videos,
            captionStore: platform.stores.captions, hub: platform.hub, now: platform.now)
        sessions = SessionController(
            store: platform.stores.sessions, deckStore: platform.stores.decks, userStore: platform.stores.users,
            videoStore: platform.stores.videos, blobs: platform.blobs, hub: platform.hub, accounts: platform.accounts,
            joinBase: joinBase,
            workDirectory: platform.configuration.temporaryDirectory, now: platform.now, courses: CourseTeachers(platform),
            audit: AuditLog(store: platform.stores.accounts, now: platform.now))
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        questionBanks.addRoutes(to: api)
        reports.addRoutes(to: api)
        sessions.addRoutes(to: api)
    }
}
