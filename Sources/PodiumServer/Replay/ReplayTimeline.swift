import Foundation
import PodiumCore
import PodiumStore
import PodiumWire

/// A session as it happened, built from what the store kept (issue #44): the durable events with
/// their times, what a viewer saw of the ephemeral views (the stored events and the audience's
/// records replayed by time through ``SessionState`` and ``SessionViews``, as the live session
/// computed them), the pointer's side log and when each recorded stroke began.
///
/// The REST route (``ReplayController``) and the MP4 export use it:
///
/// ```swift
/// let timeline = try await ReplayTimeline.build(stores: stores, record: record, session: info).timeline
/// ```
enum ReplayTimeline {
    /// Views of one kind (per poll) closer together than this are one: the newest.
    static let viewSpacing = 250
    /// The most audience records read at once.
    static let recordBatch = 5000

    /// The audio takes of a session, oldest first, as the recordings' routes show them.
    static func recordings(_ stores: Stores, _ record: SessionRecord) async throws -> [RecordingResponse] {
        try await stores.recordings.recordings(sessionId: record.id).map(RecordingResponse.init)
    }

    /// The timeline of `record` (live or ended) up to `now`.
    /// - Parameters:
    ///   - session: the session as the API shows it (``session(_:stores:base:)`` builds one
    ///     without a request); its `pages` are filled in here.
    ///   - forHost: the host's replay: polls' right answers as they were stored. Anyone else gets
    ///     the events as viewers received them (no right answer before the reveal).
    ///   - clips: gives the clips shown their links anew (see ``freshClipLinks(_:record:clips:)``);
    ///     nil keeps the stored ones.
    static func build(
        stores: Stores, record: SessionRecord, session: LiveSessionInfo, forHost: Bool = true, now: Date = Date(),
        clips: (any StageVideos)? = nil
    ) async throws -> ReplayTimelineBody {
        var session = session
        var pageCount = 0
        if !record.isRoom, let deckId = record.deckId {
            let pages = try await stores.decks.pages(deckId: deckId)
            pageCount = pages.count
            session.pages = pages.map(DeckResponse.pageInfo)
        } else {
            session.pages = []
        }
        // Whole seconds: `startedAt` goes out as an ISO 8601 date without fractions, and a client
        // maps the clips' anchors (server time) onto the offsets from it (REPLAY-PAGE, #44).
        let start = Date(timeIntervalSince1970: record.createdAt.timeIntervalSince1970.rounded(.down))
        let end = record.endedAt ?? now
        func offset(_ date: Date?) -> Int { max(0, Int(((date ?? start).timeIntervalSince(start) * 1000).rounded())) }

        let texts = try await stores.replay.replayEvents(sessionId: record.id)
        var stored = texts.map(\.stored)
        if let clips { stored = try await freshClipLinks(stored, record: record, clips: clips) }
        let events = stored.map { ReplayEvent(at: offset($0.at), event: forHost ? $0.event : $0.event.forViewers) }
        // Each event goes out as it was stored unless it changed here (a clip's new links, a
        // poll's right answers kept from viewers): decoding and encoding 5,000 of them again
        // was a good part of the answer's time.
        let storedJSON = zip(texts, events).map { text, event in text.stored.event == event.event ? text.json : nil }
        var records: [StoredAudienceRecord] = []
        while true {
            let batch = try await stores.interaction.audienceRecords(
                sessionId: record.id, afterRecordSeq: records.last?.rseq ?? 0, limit: recordBatch)
            records += batch
            if batch.count < recordBatch { break }
        }
        let views = try self.views(
            events: stored, records: records, pageCount: pageCount, room: record.isRoom, offset: offset)
        let samples = try await stores.replay.replaySamples(sessionId: record.id)
        let timeline = ReplayTimelineResponse(
            session: session, startedAt: start, duration: offset(end), live: record.isLive, events: events,
            views: views, pointer: pointer(samples, offset: offset), drawn: drawn(stored, samples: samples, offset: offset),
            recordings: try await recordings(stores, record))
        return ReplayTimelineBody(timeline: timeline, storedJSON: storedJSON)
    }

    /// The events with every clip shown given its links anew. A clip plays through a capability
    /// URL made when it was put on the stage, good for `--stage-video-link-hours` (12 by
    /// default): a replay watched the next day would find them expired. A clip no longer in the
    /// library keeps its old links (the replay's stage then shows its title).
    static func freshClipLinks(_ events: [StoredEvent], record: SessionRecord, clips: any StageVideos) async throws
        -> [StoredEvent]
    {
        var media: [String: PlaybackMedia?] = [:]
        var renewed = events
        for (index, stored) in events.enumerated() {
            guard case .playback(var playback?) = stored.event.change, playback.media != nil else { continue }
            if media[playback.video] == nil {
                media[playback.video] =
                    try await clips.readyVideo(id: playback.video, ownedBy: record.presenterId, session: record.id)?.media
            }
            guard let fresh = media[playback.video] ?? nil else { continue }
            playback.media = fresh
            renewed[index].event = SessionEvent(seq: stored.event.seq, change: .playback(playback))
        }
        return renewed
    }

    /// The session as the API shows it, without a request: links under `base` (the server's
    /// public address), no viewer count.
    static func session(_ record: SessionRecord, stores: Stores, base: String) async throws -> LiveSessionInfo {
        let deck = try await record.deckId.asyncMap { try await stores.decks.deck(id: $0) } ?? nil
        let presenter = try await stores.users.user(id: record.presenterId)
        let path = record.isRoom ? "r" : "s"
        return LiveSessionInfo(
            id: record.id, code: record.code, kind: record.kind, joinUrl: "\(base)/s/\(record.code)",
            presenterUrl: record.isRoom ? "\(base)/r/\(record.code)" : nil,
            moderatorUrl: record.isRoom ? "\(base)/r/\(record.code)/moderate" : nil,
            projectorUrl: record.isRoom ? "\(base)/r/\(record.code)/projector" : nil,
            screenUrl: record.isRoom ? "\(base)/r/\(record.code)/projector" : "\(base)/s/\(record.code)/screen",
            deckId: record.deckId, title: record.title ?? deck?.title ?? (record.isRoom ? "Room" : "Session"),
            presenter: presenter?.name ?? "Presenter", hasPasscode: record.passcodeHash != nil,
            allowDownload: record.allowDownload, live: record.isLive, pageCount: deck?.pageCount ?? 0,
            createdAt: record.createdAt, startedAt: record.createdAt, endedAt: record.endedAt, viewers: nil,
            unlisted: record.unlisted, replay: record.replay, replayUrl: "\(base)/\(path)/\(record.code)/replay")
    }

    /// What a viewer was sent of the views, action by action: the events and the audience's
    /// records merged by time (an event first on a tie: a record refers to what came before it)
    /// and applied to a ``SessionState`` as a node catching up applies them; each refresh they
    /// cause is the viewer's frame from ``SessionViews``. Newest wins per kind (per poll) within
    /// ``viewSpacing`` ms.
    static func views(
        events: [StoredEvent], records: [StoredAudienceRecord], pageCount: Int, room: Bool, offset: (Date?) -> Int
    ) throws -> [ReplayView] {
        var state = room ? SessionState(roomWithCommandMemory: 1) : SessionState(pageCount: pageCount, commandMemory: 1)
        var views = ViewList()
        var lastPublicList: [PublicQuestion] = []
        var eventIndex = 0
        var recordIndex = 0
        while eventIndex < events.count || recordIndex < records.count {
            let actions: [SessionAction]
            let at: Int
            if recordIndex < records.count,
                eventIndex >= events.count || records[recordIndex].at < (events[eventIndex].at ?? .distantPast)
            {
                at = offset(records[recordIndex].at)
                actions = state.catchUp(with: records[recordIndex])
                recordIndex += 1
            } else {
                at = offset(events[eventIndex].at)
                actions = try state.catchUp(with: events[eventIndex])
                eventIndex += 1
            }
            guard !actions.isEmpty else { continue }
            let sessionViews = SessionViews(state: state, members: SessionMembers())
            var done = Set<SessionAction>()
            for action in actions where done.insert(action).inserted {
                switch action {
                case .refreshResults(let pollId):
                    guard state.snapshot.poll(pollId) != nil, state.snapshot.viewersSeeTally(of: pollId) else { continue }
                    var results = sessionViews.results(for: pollId, forHosts: false)
                    // Who was connected is not kept: the viewers who had come by then.
                    results.connected = state.viewers.all.count
                    views.add(.results(results), key: "results/\(pollId)", at: at)
                case .refreshQuestions:
                    let list = state.snapshot.questionMode.isPublic ? sessionViews.publicQuestionViews() : []
                    guard list != lastPublicList else { continue }
                    lastPublicList = list
                    views.add(.publicQuestions(PublicQuestionsMessage(questions: list)), key: "publicQuestions", at: at)
                case .refreshLeaderboard:
                    views.add(.leaderboard(sessionViews.leaderboard(state.leaderboard)), key: "leaderboard", at: at)
                case .refreshViewerList, .tellAnswer, .tellVotes, .ended:
                    continue
                }
            }
        }
        return views.list
    }

    /// Views in time order, one per kind (per poll) per ``viewSpacing`` ms: the newest, at its time.
    struct ViewList {
        private var views: [ReplayView] = []
        /// Per key: where its last view is, and when the window it fills began.
        private var last: [String: (index: Int, window: Int)] = [:]

        mutating func add(_ message: ReplayView.Message, key: String, at: Int) {
            if let (index, window) = last[key], at - window < ReplayTimeline.viewSpacing {
                views[index] = ReplayView(at: at, message: message)
                return
            }
            views.append(ReplayView(at: at, message: message))
            last[key] = (views.count - 1, at)
        }

        /// Oldest first (a replaced view moved later, past others perhaps).
        var list: [ReplayView] {
            views.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        }
    }

    /// The side log's pointer samples (already at most 5 a second).
    static func pointer(_ samples: [ReplaySample], offset: (Date?) -> Int) -> [ReplayPointer] {
        samples.compactMap { sample in
            switch sample.kind {
            case .pointer(let page, let deck, let x, let y):
                ReplayPointer(at: offset(sample.at), page: page, deck: deck, x: x, y: y)
            case .hidden: ReplayPointer(hiddenAt: offset(sample.at))
            case .inkStart: nil
            }
        }
    }

    /// When each stroke committed while recording began: the last drawing start noted after the
    /// stroke before it and not after it.
    static func drawn(_ events: [StoredEvent], samples: [ReplaySample], offset: (Date?) -> Int) -> [String: Int] {
        let starts = samples.compactMap { $0.kind == .inkStart ? $0.at : nil }
        guard !starts.isEmpty else { return [:] }
        var drawn: [String: Int] = [:]
        var previous = Date.distantPast
        var index = 0
        for stored in events {
            guard case .stroke(let stroke) = stored.event.change, let at = stored.at else { continue }
            var begun: Date?
            while index < starts.count, starts[index] <= at {
                if starts[index] > previous { begun = starts[index] }
                index += 1
            }
            if let begun { drawn[stroke.id] = offset(begun) }
            previous = at
        }
        return drawn
    }
}
