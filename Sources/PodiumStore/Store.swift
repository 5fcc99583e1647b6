import Foundation
import PodiumCore

/// Accounts and their API tokens. Tokens are stored as SHA-256 hashes, never in the clear.
public protocol UserStore: Sendable {
    func userCount() async throws -> Int
    func insertUser(_ user: UserRecord) async throws
    func user(email: String) async throws -> UserRecord?
    /// Every account, by email.
    func users() async throws -> [UserRecord]
    func user(id: String) async throws -> UserRecord?
    func insertToken(hash: String, userId: String, expiresAt: Date) async throws
    /// The user a token belongs to, if the token exists and has not expired at `now`.
    func user(tokenHash: String, now: Date) async throws -> UserRecord?
    func deleteToken(hash: String) async throws
    /// Grants or revokes channel membership.
    func setMember(userId: String, _ isMember: Bool) async throws
    /// Sets an account's password hash and ends every token of the account (its sign-ins).
    func setPasswordHash(userId: String, _ hash: String) async throws
}

/// Settings every node must share (the key that signs stream URLs), stored once.
public protocol ChannelSettingsStore: Sendable {
    /// The stored value of `name`; when there is none yet, stores `value` and returns it. Nodes
    /// starting together all get the one value stored first.
    func channelSetting(_ name: String, orInsert value: String) async throws -> String

    /// When a person (an account's id or a browser's viewer id) last looked at what is new.
    func channelLastSeen(viewerKey: String) async throws -> Date?
    /// Records that they looked at `at` (a later look replaces an earlier one).
    func markChannelSeen(viewerKey: String, at: Date) async throws
}

/// The library: folders, decks and their pages.
public protocol DeckStore: Sendable {
    func folders(ownerId: String) async throws -> [FolderRecord]
    func folder(id: String) async throws -> FolderRecord?
    func insertFolder(_ folder: FolderRecord) async throws
    func renameFolder(id: String, name: String) async throws
    /// Puts a folder inside another (nil: at the top level). The caller checks for cycles.
    func moveFolder(id: String, parentId: String?) async throws
    /// Deletes the folder; what it held (folders, decks, videos, storyboards) moves up to its parent.
    func deleteFolder(id: String) async throws

    func insertDeck(_ deck: DeckRecord) async throws
    func deck(id: String) async throws -> DeckRecord?
    /// Decks of an owner's library, newest first (not guests' uploads into their rooms); `folderId` nil
    /// lists every deck.
    func decks(ownerId: String, folderId: String?) async throws -> [DeckRecord]
    func updateDeck(_ deck: DeckRecord) async throws
    /// Marks a deck ready with its pages, in one transaction.
    func completeDeck(_ deck: DeckRecord, pages: [PageRecord]) async throws
    func pages(deckId: String) async throws -> [PageRecord]
    func deleteDeck(id: String) async throws
    /// How many decks name this blob as their source (an upload's file may be shared).
    func decksUsing(sourceHash: String) async throws -> Int
    /// Decks left `processing` by a stopped server, to be failed or redone at start.
    func processingDecks() async throws -> [DeckRecord]
}

/// The video library: clips, their packaging state and the blobs they use.
public protocol VideoStore: Sendable {
    func insertVideo(_ video: VideoRecord) async throws
    func video(id: String) async throws -> VideoRecord?
    /// An owner's library of videos, newest first; `folderId` nil lists every one. A room's own
    /// clips are not in it.
    func videos(ownerId: String, folderId: String?) async throws -> [VideoRecord]
    /// The clips uploaded into a room (its session id), newest first.
    func videos(roomId: String) async throws -> [VideoRecord]
    /// Saves every field but the id, owner, source and creation time.
    func updateVideo(_ video: VideoRecord) async throws
    /// Saves how the clip is presented (its trim and whether it loops) and nothing else, so a
    /// packaging job saving the rest meanwhile does not undo it; false when there is no such video.
    func updateVideoClip(id: String, trimStart: Double?, trimEnd: Double?, loops: Bool) async throws -> Bool
    /// Deletes the video and returns the blobs no other video uses (its source and packaged
    /// files), which the caller may remove.
    func deleteVideo(id: String) async throws -> [String]
    /// Those of `names` that no video but `videoId` uses (as its source or one of its files): what
    /// a packaging run stopped half way, or finished after its video was deleted, may remove.
    func blobsUnused(_ names: [String], exceptVideo videoId: String) async throws -> [String]
    /// The clips whose retiring files are due to go (``VideoRecord/retireAt`` at or before `date`).
    func videosRetiring(until date: Date) async throws -> [VideoRecord]
    /// Drops the retiring files of `videoId` if it still has those due at `retireAt` (a
    /// compare-and-set: of several nodes sweeping at once, one drops them) and returns those no
    /// video uses any more (as its source, one of its files or one of its retiring files), which
    /// the caller may remove; nil when another sweep (or a new ladder) came first.
    func retireFiles(videoId: String, retireAt: Date) async throws -> [String]?
    /// Clips packaged whole (ready, with a picture and its MP4) that retire nothing, by id after
    /// `afterId`, at most `limit`: where files kept before retiring existed are looked for.
    func ladderCompleteVideos(afterId: String?, limit: Int) async throws -> [VideoRecord]
    /// Moves `retiring` of a clip's files to its retiring files, due at `retireAt`, if its files
    /// are still `files` and it retires nothing yet (a compare-and-set); false otherwise.
    func startRetiring(videoId: String, files: String, retiring: [String], retireAt: Date) async throws -> Bool
}

/// Storyboard projects: their records, who may edit them, and their content as snapshots and
/// numbered edits (the live editor appends; a project is its newest snapshot plus the edits
/// after it).
public protocol StoryboardStore: Sendable {
    /// Stores a new project with its first snapshot (seq 0).
    func insertStoryboard(_ storyboard: StoryboardRecord, content: String) async throws
    func storyboard(id: String) async throws -> StoryboardRecord?
    /// The projects a user owns or was invited to edit, newest change first; `folderId` nil
    /// lists every one (folders are the owner's: a shared project is listed at the top level).
    func storyboards(userId: String, folderId: String?) async throws -> [StoryboardRecord]
    /// Saves the title, description, aspect ratio and folder.
    func updateStoryboard(_ storyboard: StoryboardRecord) async throws
    func deleteStoryboard(id: String) async throws

    /// Who besides the owner may edit a project.
    func storyboardEditors(storyboardId: String) async throws -> [UserRecord]
    func addStoryboardEditor(storyboardId: String, userId: String) async throws
    func removeStoryboardEditor(storyboardId: String, userId: String) async throws

    /// Stores edits whose `seq` continue the stored ones, all or nothing, with the project's new
    /// counts and update time (a `seq` stored already throws ``SeqConflict``).
    func appendStoryboardEdits(_ edits: [StoryboardEditRecord], summary: StoryboardSummaryChange) async throws
    /// The stored edits after `afterSeq`, up to `throughSeq` when given, in order.
    func storyboardEdits(storyboardId: String, afterSeq: Int, throughSeq: Int?) async throws -> [StoryboardEditRecord]
    /// The edits that changed a shot, newest first: what its version history lists.
    func storyboardShotEdits(storyboardId: String, shotId: String, limit: Int) async throws -> [StoryboardEditRecord]
    /// The ids of the edits stored after `afterSeq` with their seq, oldest first.
    func storyboardEditKeys(storyboardId: String, afterSeq: Int) async throws -> [(key: String, seq: Int)]
    func saveStoryboardSnapshot(storyboardId: String, _ snapshot: StoryboardSnapshot, at: Date) async throws
    /// The newest snapshot at or before `seq` (the newest of all when nil).
    func storyboardSnapshot(storyboardId: String, atOrBefore seq: Int?) async throws -> StoryboardSnapshot?

    func insertStoryboardExport(_ export: StoryboardExportRecord) async throws
    func storyboardExport(id: String) async throws -> StoryboardExportRecord?
    /// A project's exports, newest first.
    func storyboardExports(storyboardId: String) async throws -> [StoryboardExportRecord]
    /// Saves the status, file and error.
    func updateStoryboardExport(_ export: StoryboardExportRecord) async throws
}

/// Sessions and their durable events.
public protocol SessionStore: SessionHostStore {
    func insertSession(_ session: SessionRecord) async throws
    func session(code: String) async throws -> SessionRecord?
    func session(id: String) async throws -> SessionRecord?
    func liveSessions() async throws -> [SessionRecord]
    func markSessionEnded(id: String, at: Date) async throws
    /// Changes who may find and join a session: its passcode (both nil: none) and whether the
    /// live list shows it.
    func updateSessionAccess(id: String, passcode: String?, passcodeHash: String?, unlisted: Bool) async throws
    /// Changes who may watch a session's replay.
    func updateSessionReplay(id: String, replay: ReplayAccess) async throws
    /// A presenter's sessions and rooms, live and ended, newest first: at most `limit`, started
    /// before `before` when given (the previous page's last `createdAt`).
    func sessions(presenterId: String, before: Date?, limit: Int) async throws -> [SessionRecord]
    /// Whether any of a session's events has one of `types` (a room that showed a page, say).
    func hasEvent(sessionId: String, ofTypes types: [String]) async throws -> Bool

    /// Stores what one command changed, all or nothing: its events, whose `seq` must continue
    /// the stored history (a `seq` stored already throws ``SeqConflict`` and stores nothing), the
    /// audience records it made, and its id, so a retry counts once even after a restart.
    func append(sessionId: String, _ write: CommandWrite, at: Date) async throws
    /// The ids of the newest `limit` commands that stored records but no event, with the `seq`
    /// each was acknowledged with, oldest first. (Commands with events keep their id on them.)
    func recordedCommands(sessionId: String, limit: Int) async throws -> [(key: String, seq: Int)]
    /// The stored events after `afterSeq`, in order.
    func events(sessionId: String, afterSeq: Int) async throws -> [StoredEvent]
}

/// What the audience contributed: poll answers, questions, votes, who joined. Kept beside the
/// event log because most of it is for the host's eyes only; written by ``SessionStore/append``
/// (viewers by `saveViewer`, when they join).
public protocol InteractionStore: Sendable {
    /// Every answer of a session, each poll's in order of first answer.
    func answers(sessionId: String) async throws -> [(pollId: Int, viewerId: String, answer: PollAnswer, at: Date)]
    func questions(sessionId: String) async throws -> [AudienceQuestion]
    func votes(sessionId: String) async throws -> [(questionId: String, viewerId: String)]
    /// Stores a viewer (a new name for one known). A newcomer gets the session's next free
    /// number here, whatever `viewer.number` says, so viewers joining on several nodes never
    /// share one; a known viewer keeps theirs. Returns the entry as stored.
    func saveViewer(sessionId: String, _ viewer: ViewerEntry, at: Date) async throws -> ViewerEntry
    func viewers(sessionId: String) async throws -> [ViewerEntry]
    /// The session's record seq: how many audience changes (records and viewers' entries) it has
    /// stored, each numbered in the transaction that stored it (0 before the first).
    func audienceRecordSeq(sessionId: String) async throws -> Int
    /// The audience changes stored after record seq `afterRecordSeq`, at most `limit`, in order:
    /// what a node that applied up to `afterRecordSeq` lacks.
    func audienceRecords(sessionId: String, afterRecordSeq: Int, limit: Int) async throws -> [StoredAudienceRecord]
}

/// What one command changed, for ``SessionStore/append(sessionId:_:at:)``.
public struct CommandWrite: Sendable, Equatable {
    /// The command's id as the session remembers it (scoped per viewer); nil for none.
    public var commandKey: String?
    /// The durable events, in `seq` order.
    public var events: [SessionEvent]
    public var records: [AudienceRecord]
    /// The `seq` the command is acknowledged with.
    public var seq: Int

    public init(commandKey: String?, events: [SessionEvent], records: [AudienceRecord] = [], seq: Int) {
        self.commandKey = commandKey
        self.events = events
        self.records = records
        self.seq = seq
    }
}

/// Another writer stored an event with this `seq` first: the history did not fork, and nothing of
/// this write was stored. The writer catches up from the store and decides again.
public struct SeqConflict: Error, Sendable, Equatable {
    public let sessionId: String
    public let seq: Int

    public init(sessionId: String, seq: Int) {
        self.sessionId = sessionId
        self.seq = seq
    }
}

/// A viewer's private notes, and who was connected when.
public protocol NotesAndAttendanceStore: Sendable {
    /// Saves the note for one page; empty text deletes it.
    func saveNote(sessionId: String, viewerId: String, page: Int, text: String, at: Date) async throws
    /// A viewer's notes by page.
    func notes(sessionId: String, viewerId: String) async throws -> [Int: String]
    /// A viewer's connection opened; `id` names the visit until it ends. With `saving`, the viewer
    /// is stored in the same transaction, as ``InteractionStore/saveViewer(sessionId:_:at:)``
    /// stores one (a newcomer numbered by the store), and returned as stored: a hello makes one
    /// trip to the database, not two.
    @discardableResult
    func visitStarted(id: String, sessionId: String, viewerId: String, saving viewer: ViewerEntry?, at: Date)
        async throws -> ViewerEntry?
    func attendanceEnded(id: String, at: Date) async throws
    /// Every visit of a session: who, from when, until when (nil: still connected, or the server stopped).
    func attendance(sessionId: String) async throws -> [(viewerId: String, joinedAt: Date, leftAt: Date?)]
}

/// A deck's question bank: polls prepared before a session, sent with one click during it.
public protocol QuestionBankStore: Sendable {
    func bankQuestions(deckId: String) async throws -> [BankQuestion]
    func saveBankQuestion(_ question: BankQuestion) async throws
    func deleteBankQuestion(id: String) async throws
}

/// The job queue: long work kept in the store so that a restart resumes it (see ``JobRecord``).
///
/// Written for several workers, and later several nodes, sharing one table: a job is taken by
/// ``claimJob(kind:at:leaseUntil:)`` alone, which moves one `queued` job to `running` in a single
/// guarded statement, so two workers can never take the same job.
///
/// A running job is leased: the node running it renews the lease while it runs
/// (``renewJobLease(id:attempt:until:)``), and only a job whose lease expired (its node died) is queued
/// again (``requeueExpiredJobs(at:)``), by whichever node looks first.
public protocol JobStore: Sendable {
    func insertJob(_ job: JobRecord) async throws
    func job(id: String) async throws -> JobRecord?
    /// Jobs queued or running, oldest first.
    func unfinishedJobs() async throws -> [JobRecord]
    /// Takes the oldest queued job of `kind`: it becomes `running`, leased until `leaseUntil`, and
    /// its `attempts` grows by one. Nil when none is queued (or another worker took it first).
    func claimJob(kind: String, at: Date, leaseUntil: Date) async throws -> JobRecord?
    /// Extends the lease of the run `attempt` of a job, which this node runs. False when that run
    /// is over (another node found its lease expired and queued the job again, or runs it).
    func renewJobLease(id: String, attempt: Int, until: Date) async throws -> Bool
    /// Saves the progress of the run `attempt` of a running job, so that a restart shows the last known.
    func saveJobProgress(id: String, attempt: Int, _ progress: JobProgress, at: Date) async throws
    /// Ends a job as its run `attempt` ended: `done` when `failure` is nil, else `failed` with it.
    /// False, and nothing changes, when a later run has started (another node took the job for
    /// abandoned): that run's end decides. A run whose job was queued again but not yet taken
    /// still ends it, since its work is done.
    @discardableResult
    func finishJob(id: String, attempt: Int, failure: JobFailure?, at: Date) async throws -> Bool
    /// Puts a running job back in the queue without counting its run `attempt`: the server
    /// stopped it, not the job's own doing. False, and nothing changes, when that run is no
    /// longer the job's (another node queued it again or runs it).
    @discardableResult
    func releaseJob(id: String, attempt: Int, progress: JobProgress, at: Date) async throws -> Bool
    /// Queues again the running jobs whose lease ended before `at` (their node died; the attempt
    /// stays counted), and those without a lease (left by a version without leases). Returns how many.
    func requeueExpiredJobs(at: Date) async throws -> Int
}

/// The channel's places and their categories. Deleting archives (``ChannelPlaceRecord/archivedAt``);
/// the `delete…` methods remove for ever.
public protocol ChannelPlaceStore: Sendable {
    func insertPlaceCategory(_ category: ChannelPlaceCategoryRecord) async throws
    func placeCategory(id: String) async throws -> ChannelPlaceCategoryRecord?
    /// By position; `.published` and `.all` both mean not archived (categories have no publishing).
    func placeCategories(_ filter: ChannelItemFilter) async throws -> [ChannelPlaceCategoryRecord]
    /// Saves every field but the id.
    func updatePlaceCategory(_ category: ChannelPlaceCategoryRecord) async throws
    /// Removes it; its places keep going without a category.
    func deletePlaceCategory(id: String) async throws

    func insertPlace(_ place: ChannelPlaceRecord) async throws
    func place(id: String) async throws -> ChannelPlaceRecord?
    /// By position, then name; of one category when `categoryId` is given.
    func places(_ filter: ChannelItemFilter, categoryId: String?) async throws -> [ChannelPlaceRecord]
    /// Saves every field but the id.
    func updatePlace(_ place: ChannelPlaceRecord) async throws
    /// Removes it for ever; returns its image's blob name if no other place uses that image.
    func deletePlace(id: String) async throws -> String?
    /// Numbers `ids` 0, 1, 2… in that order (places, or categories with `categories`), all at once.
    func reorderPlaces(_ ids: [String], categories: Bool, at: Date) async throws
    /// The newest `updatedAt` of any place or category, archived ones included (nil: none yet).
    func placesChangedAt() async throws -> Date?
    /// The venue's picture (a blob name) and when it last changed; nil before one was ever set.
    func venueImage() async throws -> (image: String?, updatedAt: Date)?
    func setVenueImage(_ image: String?, at: Date) async throws
}

/// The channel's quizzes, their questions with answers, and each person's last and best score.
public protocol ChannelQuizStore: Sendable {
    /// Stores a quiz with its questions (in order), all or nothing.
    func insertQuiz(_ quiz: ChannelQuizRecord, questions: [ChannelQuizQuestion]) async throws
    func quiz(id: String) async throws -> ChannelQuizRecord?
    /// By position (the admin's order), then name.
    func quizzes(_ filter: ChannelItemFilter) async throws -> [ChannelQuizRecord]
    /// Saves every field but the id.
    func updateQuiz(_ quiz: ChannelQuizRecord) async throws
    /// Replaces a quiz's questions and answers with `questions` (ids kept as given), and saves the
    /// quiz's `updatedAt`, all or nothing.
    func replaceQuizQuestions(quizId: String, _ questions: [ChannelQuizQuestion], at: Date) async throws
    func quizQuestions(quizId: String) async throws -> [ChannelQuizQuestion]
    /// How many questions each quiz has.
    func quizQuestionCounts() async throws -> [String: Int]
    func deleteQuiz(id: String) async throws
    func reorderQuizzes(_ ids: [String], at: Date) async throws
    /// The newest `updatedAt` of any quiz, archived ones included (nil: none yet).
    func quizzesChangedAt() async throws -> Date?
    /// Records an attempt: the result's `score` and `takenAt` become these, and its best score
    /// (with `bestAt`) rises when this one beats it. Returns the result as stored.
    func recordQuizAttempt(quizId: String, viewerKey: String, score: Int, total: Int, at: Date) async throws
        -> ChannelQuizResultRecord
    /// A person's results by quiz id.
    func quizResults(viewerKey: String) async throws -> [String: ChannelQuizResultRecord]
}

/// One prepared poll of a deck.
public struct BankQuestion: Sendable, Equatable, Codable {
    public var id: String
    public var deckId: String
    public var position: Int
    public var poll: Poll
    public var createdAt: Date

    public init(id: String, deckId: String, position: Int, poll: Poll, createdAt: Date) {
        self.id = id
        self.deckId = deckId
        self.position = position
        self.poll = poll
        self.createdAt = createdAt
    }
}

/// The channel's radio stations, their tracks and the listening of non-members per day.
public protocol ChannelRadioStore: Sendable {
    func insertRadio(_ radio: ChannelRadioRecord) async throws
    func radio(id: String) async throws -> ChannelRadioRecord?
    /// Every station, archived ones too, by position.
    func radios() async throws -> [ChannelRadioRecord]
    /// Saves every field but the id and creation time.
    func updateRadio(_ radio: ChannelRadioRecord) async throws
    /// Deletes the station with its tracks; returns the blobs no other track uses.
    func deleteRadio(id: String) async throws -> [String]

    func insertRadioTrack(_ track: ChannelRadioTrackRecord) async throws
    func radioTrack(id: String) async throws -> ChannelRadioTrackRecord?
    /// A station's tracks in schedule order.
    func radioTracks(radioId: String) async throws -> [ChannelRadioTrackRecord]
    /// Saves every field but the id, station, source and creation time.
    func updateRadioTrack(_ track: ChannelRadioTrackRecord) async throws
    /// Puts a station's tracks in the order of `ids` (which must be all of them), in one transaction.
    func reorderRadioTracks(radioId: String, ids: [String], at: Date) async throws
    /// Deletes the track; returns the blobs no other track uses.
    func deleteRadioTrack(id: String) async throws -> [String]
    /// Those of `names` that no track but `trackId` uses.
    func radioBlobsUnused(_ names: [String], exceptTrack trackId: String) async throws -> [String]

    /// Seconds a listener was served on a day (`YYYY-MM-DD` in the channel's time zone).
    func radioUsage(viewerKey: String, day: String) async throws -> Double
    /// Adds listening time, many listeners at once (the server batches it).
    func addRadioUsage(_ additions: [RadioUsage]) async throws
}

/// Listening time to add for one listener and day.
public struct RadioUsage: Sendable, Equatable {
    public var viewerKey: String
    public var day: String
    public var seconds: Double

    public init(viewerKey: String, day: String, seconds: Double) {
        self.viewerKey = viewerKey
        self.day = day
        self.seconds = seconds
    }
}

/// The channel's video catalogue (migration 17): categories, the videos published from the
/// library, and each person's favourites and resume positions (keyed by the channel viewer key:
/// the user id when signed in, else the anonymous `podium_viewer` id).
public protocol ChannelVideoStore: Sendable {
    /// Categories of a listing (`.published` and `.all`: not archived), by position.
    func channelVideoCategories(_ listing: ChannelListing) async throws -> [ChannelVideoCategoryRecord]
    func channelVideoCategory(id: String) async throws -> ChannelVideoCategoryRecord?
    /// Stores a category placed after its siblings (its `position` is ignored); returns it as stored.
    func insertChannelVideoCategory(_ category: ChannelVideoCategoryRecord) async throws -> ChannelVideoCategoryRecord
    /// Saves the name, parent, position, update and archive times.
    func updateChannelVideoCategory(_ category: ChannelVideoCategoryRecord) async throws
    /// Deletes a category for ever; false when a video still uses it (nothing is deleted).
    func deleteChannelVideoCategory(id: String) async throws -> Bool
    /// Gives `ids` the positions 0, 1, 2… in that order, with `updatedAt` `at`.
    func reorderChannelVideoCategories(_ ids: [String], at: Date) async throws

    /// Videos of a query: promoted first, then by position, then newest published.
    func channelVideos(_ query: ChannelVideoQuery) async throws -> [ChannelVideoEntry]
    func channelVideo(id: String) async throws -> ChannelVideoEntry?
    /// The newest `updatedAt` of any video or category (archived ones too): the catalogue's Last-Modified.
    func channelVideosUpdatedAt() async throws -> Date?
    /// The published, unarchived video published last (the "last broadcast").
    func latestPublishedChannelVideoId() async throws -> String?
    /// Stores a video placed after the others (its `position` is ignored); returns it as stored.
    func insertChannelVideo(_ video: ChannelVideoRecord) async throws -> ChannelVideoRecord
    /// Saves every field but the id, library video and creation time.
    func updateChannelVideo(_ video: ChannelVideoRecord) async throws
    /// Deletes a video for ever, with its favourites and positions.
    func deleteChannelVideo(id: String) async throws
    func reorderChannelVideos(_ ids: [String], at: Date) async throws

    /// A person's favourite published videos, most recently added first.
    func channelFavourites(viewerKey: String) async throws -> [ChannelVideoEntry]
    func isChannelFavourite(viewerKey: String, channelVideoId: String) async throws -> Bool
    /// Adds a favourite (again is once).
    func addChannelFavourite(viewerKey: String, channelVideoId: String, at: Date) async throws
    func removeChannelFavourite(viewerKey: String, channelVideoId: String) async throws
    /// Saves where a person is in a video (replacing what was saved).
    func saveChannelPosition(_ position: ChannelPositionRecord) async throws
    func channelPosition(viewerKey: String, channelVideoId: String) async throws -> ChannelPositionRecord?
    /// A person's positions in published videos, most recent first, at most `limit`.
    func channelPositions(viewerKey: String, limit: Int) async throws -> [(
        position: ChannelPositionRecord, video: ChannelVideoEntry
    )]
    /// Moves what an anonymous person kept (favourites, positions) to their account at sign-in:
    /// favourites are joined, and of two positions in one video the newer is kept.
    func adoptChannelViewer(from anonymousKey: String, into accountKey: String) async throws
}

/// Whether the store can be used at all (`/readyz`).
public protocol StoreHealth: Sendable {
    /// Runs a trivial query; throws when the database does not answer it.
    func ping() async throws
}

/// What garbage collection of blobs keeps in the store (see ``BlobCollector``): the blob
/// reference list, the marks of blobs found unreferenced, and the lease that lets one node at a
/// time collect.
public protocol BlobCollectionStore: Sendable {
    /// Every blob name the database mentions, read as of one moment: the list `podium check`
    /// and `podium backup` use (``DatabaseInventory``).
    func referencedBlobNames() async throws -> Set<String>
    /// The ids of every audio take with a row (``RecordingFiles``): the collector deletes the
    /// files of no other take.
    func recordingTakeIds() async throws -> Set<String>
    /// The marks: each blob a run found unreferenced, with when a run first found it so.
    func blobMarks() async throws -> [String: Date]
    /// Records what a run found unreferenced at `now`, in one transaction: a name already marked
    /// keeps its time, a new one is marked `now`, and every other mark goes (its blob is
    /// referenced again, or gone). Returns the marks as they now are.
    func markUnreferencedBlobs(_ names: Set<String>, at now: Date) async throws -> [String: Date]
    /// Forgets the marks of `names` (deleted blobs).
    func unmarkBlobs(_ names: [String]) async throws
    /// Takes the collection lease for `holder` until `leaseUntil`, when no one else holds it and,
    /// with `startedBefore`, when the last run started before then (nil: whenever). False, and
    /// nothing changes, otherwise.
    func claimBlobCollection(holder: String, at now: Date, leaseUntil: Date, startedBefore: Date?) async throws -> Bool
    /// Gives the lease back (only `holder`'s).
    func finishBlobCollection(holder: String, at now: Date) async throws
}

/// Everything Podium keeps. One implementation on SQL (SQLite by default, PostgreSQL for several nodes).
public typealias PodiumStore = UserStore & DeckStore & VideoStore & SessionStore & InteractionStore & QuestionBankStore
    & NotesAndAttendanceStore & JobStore & StoryboardStore & ChannelSettingsStore & ChannelVideoStore & ChannelPlaceStore
    & ChannelQuizStore & ChannelRadioStore & StoreHealth & BlobCollectionStore & CaptionStore & UploadStore
    & AccountStore & LTIStore & ExternalIdentityStore & RecordingStore & ReplayStore
    & ReplayExportStore
