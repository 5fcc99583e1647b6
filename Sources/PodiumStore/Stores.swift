import Foundation

/// The store, one field per protocol: what `buildApplication` hands each feature, which gives
/// every actor, controller and worker only the parts it uses.
///
/// Production fills every field from one ``SQLStore`` (``init(_:)``). A test replaces only the
/// part it intercepts (a ``SessionStore`` whose appends wait, a ``StoreHealth`` that fails), so a
/// test double conforms to that one protocol and wraps nothing else:
///
/// ```swift
/// var stores = Stores(sqlite)
/// stores.health = FailingHealth(stores.health)
/// ```
public struct Stores: Sendable {
    public var users: any UserStore
    public var channelSettings: any ChannelSettingsStore
    public var decks: any DeckStore
    public var videos: any VideoStore
    public var captions: any CaptionStore
    public var uploads: any UploadStore
    /// LTI 1.3: registered platforms, logins under way, deep links.
    public var lti: any LTIStore
    /// Single sign-on: which account each OpenID provider's person signs in as.
    public var externalIdentities: any ExternalIdentityStore
    /// Account links sent by email, roles, the audit log.
    public var accounts: any AccountStore
    public var storyboards: any StoryboardStore
    public var sessions: any SessionStore
    public var interaction: any InteractionStore
    public var notes: any NotesAndAttendanceStore
    public var questionBank: any QuestionBankStore
    public var jobs: any JobStore
    public var channelPlaces: any ChannelPlaceStore
    public var channelQuizzes: any ChannelQuizStore
    public var channelRadio: any ChannelRadioStore
    public var channelVideos: any ChannelVideoStore
    public var health: any StoreHealth
    public var blobCollection: any BlobCollectionStore
    /// The pointer side log of sessions recorded for their replay (issue #44).
    public var replay: any ReplayStore
    /// Audio takes of a presenter's microphone (replay, issue #44).
    public var recordings: any RecordingStore
    /// MP4 exports of replays (issue #44).
    public var replayExports: any ReplayExportStore
    /// Whether the database can be reached, as its probe last found (PostgreSQL only; metrics show it).
    public var availability: StoreAvailability?

    /// Every part from one store.
    public init(_ all: some PodiumStore) {
        users = all
        channelSettings = all
        decks = all
        videos = all
        captions = all
        uploads = all
        lti = all
        externalIdentities = all
        accounts = all
        storyboards = all
        sessions = all
        interaction = all
        notes = all
        questionBank = all
        jobs = all
        channelPlaces = all
        channelQuizzes = all
        channelRadio = all
        channelVideos = all
        health = all
        blobCollection = all
        replay = all
        recordings = all
        replayExports = all
        availability = (all as? SQLStore)?.availability
    }
}
