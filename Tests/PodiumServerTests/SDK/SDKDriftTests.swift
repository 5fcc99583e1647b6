import Foundation
import PodiumClient
import PodiumCore
import Testing

/// The SDK cannot drift from the documents: every operation of Public/openapi.yaml has an SDK
/// entry point (`Endpoint.all`) and the SDK calls nothing the document lacks; every message type
/// of docs/protocol.md is one the SDK sends or decodes, and the reverse; every example frame of
/// the server decodes into a typed case of `LiveMessage`, and every client example is a message
/// the SDK can send. The wire types (PodiumWire, which the server encodes and the SDK decodes)
/// are encoded from examples and compared with openapi.yaml's schemas (read as JSON, not by its
/// lines) and with protocol.md's example frames.
@Suite("Swift SDK: no drift from the documents")
struct SDKDriftTests {
    static let root = TestServer.repositoryRoot

    /// `(METHOD, /path)` of every operation in the OpenAPI document.
    static func openAPIOperations() throws -> Set<String> {
        guard case .object(let paths)? = try OpenAPISchemas.shared.get().document["paths"] else { return [] }
        var operations: Set<String> = []
        for (path, item) in paths {
            guard case .object(let methods) = item else { continue }
            for method in ["get", "post", "put", "patch", "delete", "head", "options"] where methods[method] != nil {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyOperationOfTheOpenAPIDocumentHasAnSDKCall() throws {
        let documented = try Self.openAPIOperations()
        #expect(documented.count > 100, "the parser found \(documented.count) operations")
        let sdk = Set(Endpoint.all.map(\.description))
        #expect(sdk.count == Endpoint.all.count, "an endpoint is listed twice")
        let missing = documented.subtracting(sdk).sorted()
        let undocumented = sdk.subtracting(documented).sorted()
        #expect(missing.isEmpty, "operations without an SDK call: \(missing)")
        #expect(undocumented.isEmpty, "SDK calls the document lacks: \(undocumented)")
    }

    // MARK: - The wire types against the documents

    /// An example value of a wire type, encoded as the server encodes it, and the schema of the
    /// OpenAPI document it must have.
    struct WireExample {
        let name: String
        let json: JSONValue
        let schema: @Sendable (OpenAPISchemas) throws -> JSONValue

        init(_ name: String, _ value: some Encodable, schema: @escaping @Sendable (OpenAPISchemas) throws -> JSONValue) throws {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            self.name = name
            self.json = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(value))
            self.schema = schema
        }
    }

    static let created = Date(timeIntervalSince1970: 1_764_080_000)

    /// Every REST wire type, with each optional field both set and unset somewhere.
    static func restExamples() throws -> [WireExample] {
        let user = User(id: "u_1", email: "ada@example.com", name: "Ada", role: "presenter", member: false)
        let page = PageInfo(
            number: 1, width: 720, height: 405, imageUrl: "/blobs/a.jpg", mediumUrl: "/blobs/b.jpg", thumbnailUrl: "/blobs/c.jpg")
        let processing = Deck(
            id: "d_1", title: "Intro", status: "processing", folderId: nil, createdAt: created, pageCount: 0, thumbnailUrl: nil,
            progress: WorkProgress(stage: "rendering", done: 2, total: 5))
        let ready = Deck(
            id: "d_2", title: "Talk", status: "ready", folderId: "f_1", createdAt: created, pageCount: 1,
            thumbnailUrl: "/blobs/c.jpg", pages: [page], outline: [.init(page: 1, title: "Welcome")],
            speakerNotes: [.init(page: 1, text: "Smile.")])
        let failed = Deck(
            id: "d_3", title: "Locked", status: "failed", folderId: nil, createdAt: created, pageCount: 0, thumbnailUrl: nil,
            error: FailureDetail(code: "encrypted", message: "The PDF is password-protected."))
        let liveRoom = LiveSessionInfo(
            id: "s_1", code: "K7M4QX", kind: .room, joinUrl: "http://podium.local/s/K7M4QX",
            presenterUrl: "http://podium.local/r/K7M4QX", moderatorUrl: "http://podium.local/r/K7M4QX/moderate",
            projectorUrl: "http://podium.local/r/K7M4QX/projector", screenUrl: "http://podium.local/r/K7M4QX/projector",
            deckId: nil, title: "Panel", presenter: "Ada", hasPasscode: true, allowDownload: false, live: true, pageCount: 0,
            createdAt: created, startedAt: created, endedAt: nil, viewers: 3, unlisted: true, passcode: "1234")
        let endedSession = LiveSessionInfo(
            id: "s_2", code: "ABCDEF", kind: .session, joinUrl: "http://podium.local/s/ABCDEF", presenterUrl: nil,
            moderatorUrl: nil, projectorUrl: nil, screenUrl: "http://podium.local/s/ABCDEF/screen", deckId: "d_2",
            title: "Talk", presenter: "Ada", hasPasscode: false, allowDownload: true, live: false, pageCount: 1,
            createdAt: created, startedAt: created, endedAt: created.addingTimeInterval(60), viewers: nil)
        let history = HistoryPage(
            sessions: [
                HistoryEntry(
                    id: "s_1", code: "K7M4QX", kind: .room, title: "Panel", live: true, hasPasscode: true, unlisted: true,
                    createdAt: created, endedAt: nil, consoleUrl: "/r/K7M4QX/moderate", reportUrl: "/report.html?code=K7M4QX",
                    exports: [.init(format: "csv", label: "Attendance", url: "/api/v1/sessions/K7M4QX/report/attendance.csv")]),
                HistoryEntry(
                    id: "s_2", code: "ABCDEF", kind: .session, title: "Talk", live: false, hasPasscode: false, unlisted: false,
                    createdAt: created, endedAt: created, consoleUrl: nil, reportUrl: "/report.html?code=ABCDEF", exports: []),
            ], next: "1764080000.0")
        let runningJob = Job(
            id: "j_1", kind: "pdf", subjectId: "d_1", state: "running", attempts: 1,
            progress: WorkProgress(stage: "rendering", done: 1, total: 4), error: nil, createdAt: created, updatedAt: created)
        let failedJob = Job(
            id: "j_2", kind: "video", subjectId: "v_1", state: "failed", attempts: 1, progress: nil,
            error: FailureDetail(code: "corrupt", message: "The file could not be read."), createdAt: created, updatedAt: created)
        let readyVideo = Video(
            id: "v_1", title: "Clip", status: "ready", folderId: "f_1", createdAt: created, sourceBytes: 1_000_000,
            duration: 12.5, width: 1280, height: 720, hasVideo: true, hasAudio: true, progress: nil, error: nil,
            masterPlaylistUrl: "/stream/t/master.m3u8", posterUrl: "/blobs/p.jpg", thumbnailsUrl: "/blobs/s.jpg",
            thumbnailTrackUrl: "/stream/t/thumbs.vtt", mp4Url: "/stream/t/clip.mp4",
            renditions: [
                .init(playlistUrl: "/stream/t/720.m3u8", bandwidth: 2_000_000, width: 1280, height: 720, codecs: "avc1.64001f"),
                .init(playlistUrl: "/stream/t/audio.m3u8", bandwidth: 128_000, width: nil, height: nil, codecs: "mp4a.40.2"),
            ])
        let processingVideo = Video(
            id: "v_2", title: "Clip", status: "processing", folderId: nil, createdAt: created, sourceBytes: 10, duration: 0,
            width: 0, height: 0, hasVideo: true, hasAudio: false, progress: WorkProgress(stage: "packaging", done: 1, total: 9),
            error: nil, masterPlaylistUrl: nil, posterUrl: nil, thumbnailsUrl: nil, thumbnailTrackUrl: nil, mp4Url: nil,
            renditions: [])
        var failedVideo = processingVideo
        failedVideo.status = "failed"
        failedVideo.progress = nil
        failedVideo.error = FailureDetail(code: "not_video", message: "Not a video.")
        var trimmedVideo = readyVideo
        trimmedVideo.trimStart = 1.5
        trimmedVideo.trimEnd = 9
        trimmedVideo.loop = true
        trimmedVideo.loudness = -23.1
        let project = StoryboardProject(
            id: "sb_1", title: "Chase", description: "Act one", aspectRatio: "16:9", folderId: nil, ownerId: "u_1", owned: true,
            sceneCount: 1, shotCount: 1, seq: 3, createdAt: created, updatedAt: created,
            content: .empty(firstScene: "sc_1", firstShot: "sh_1", layer: "l_1"))
        let sharedProject = [
            StoryboardProject(
                id: "sb_2", title: "Heist", description: "", aspectRatio: "2.39:1", folderId: nil, ownerId: "u_2", owned: false,
                sceneCount: 2, shotCount: 5, seq: 9, createdAt: created, updatedAt: created, content: nil)
        ]
        let queuedExport = StoryboardExport(
            id: "x_1", format: .sheet, layout: 6, seq: 3, status: "queued", bytes: 0, url: nil, fileName: "Chase - sheet.pdf",
            error: nil, progress: WorkProgress(stage: "render", done: 1, total: 3), jobId: "j_4", createdAt: created)
        let readyExport = StoryboardExport(
            id: "x_2", format: .animatic, layout: 0, seq: 3, status: "ready", bytes: 12_345,
            url: "/api/v1/storyboards/sb_1/exports/x_2/file", fileName: "Chase - animatic.mp4", error: nil, progress: nil,
            jobId: nil, createdAt: created)
        let failedExport = StoryboardExport(
            id: "x_3", format: .png, layout: 0, seq: 3, status: "failed", bytes: 0, url: nil, fileName: "Chase - shots.zip",
            error: FailureDetail(code: "internal", message: "The export failed."), progress: nil, jobId: nil, createdAt: created)
        let image = StoryboardImage(
            blob: "ab12.png", url: "/blobs/ab12.png", type: "image/png", width: 640, height: 480, bytes: 2048)
        return [
            try WireExample("User", user) { try $0.schema("User") },
            try WireExample("GET /api/v1/me", user) { try $0.body("GET", "/api/v1/me", status: "200") },
            try WireExample(
                "Limits",
                Limits(
                    maxUploadBytes: 200 << 20, uploadTypes: ["application/pdf"], maxVideoUploadBytes: 2 << 30,
                    maxVideoSeconds: 7200)
            ) { try $0.body("GET", "/api/v1/limits", status: "200") },
            try WireExample("LoginResponse", LoginResponse(token: "t0k3n", user: user)) {
                try $0.body("POST", "/api/v1/auth/login", status: "200")
            },
            try WireExample(
                "SignInOptionsResponse",
                SignInOptionsResponse(
                    password: true, singleSignOn: .init(name: "School account", start: "/api/v1/auth/oidc/start"),
                    signUp: false, passwordReset: true)
            ) { try $0.body("GET", "/api/v1/auth/options", status: "200") },
            try WireExample("Deck processing", processing) { try $0.schema("Deck") },
            try WireExample("Deck ready, with its pages", ready) { try $0.body("GET", "/api/v1/decks/{id}", status: "200") },
            try WireExample("Deck failed", failed) { try $0.schema("Deck") },
            try WireExample("GET /api/v1/decks", [ready, processing]) { try $0.body("GET", "/api/v1/decks", status: "200") },
            try WireExample("Uploaded<Deck>", Uploaded(item: processing, jobId: "j_1")) {
                try $0.body("POST", "/api/v1/decks", status: "201")
            },
            try WireExample("Folder at the top level", Folder(id: "f_1", name: "Talks", parentId: nil)) {
                try $0.schema("Folder")
            },
            try WireExample("GET /api/v1/folders", [Folder(id: "f_2", name: "2025", parentId: "f_1")]) {
                try $0.body("GET", "/api/v1/folders", status: "200")
            },
            try WireExample("Error", ["error": FailureDetail(code: "not_found", message: "No such deck.")]) {
                try $0.schema("Error")
            },
            try WireExample("Session, live room", liveRoom) { try $0.body("POST", "/api/v1/rooms", status: "201") },
            try WireExample("Session, ended", endedSession) { try $0.body("POST", "/api/v1/sessions/{code}/end", status: "200") },
            try WireExample("GET /api/v1/history", history) { try $0.body("GET", "/api/v1/history", status: "200") },
            try WireExample("Job running", runningJob) { try $0.body("GET", "/api/v1/jobs/{id}", status: "200") },
            try WireExample("Job failed", failedJob) { try $0.schema("Job") },
            try WireExample("Video ready", readyVideo) { try $0.body("GET", "/api/v1/videos/{id}", status: "200") },
            try WireExample("Video processing", processingVideo) { try $0.schema("Video") },
            try WireExample("Video failed", failedVideo) { try $0.schema("Video") },
            try WireExample("Video trimmed and looping", trimmedVideo) {
                try $0.body("PUT", "/api/v1/videos/{id}/clip", status: "200")
            },
            try WireExample("VideoClipSettings", VideoClipSettings(trimStart: 1.5, trimEnd: nil, loop: true)) {
                try $0.body("PUT", "/api/v1/videos/{id}/clip")
            },
            try WireExample("Uploaded<Video>", Uploaded(item: processingVideo, jobId: "j_3")) {
                try $0.body("POST", "/api/v1/videos", status: "201")
            },
            try WireExample("StoryboardProject, shown", project) { try $0.body("POST", "/api/v1/storyboards", status: "201") },
            try WireExample("StoryboardProject, listed and shared", sharedProject) {
                try $0.body("GET", "/api/v1/storyboards", status: "200")
            },
            try WireExample(
                "SessionHostList",
                SessionHostList(
                    presenter: Person(id: "u_1", name: "Ada", email: "ada@example.com"),
                    coHosts: [
                        SessionCoHost(id: "u_2", name: "Grace", email: "grace@example.com", reason: "invited", since: created)
                    ], canManage: true)
            ) { try $0.body("GET", "/api/v1/sessions/{code}/hosts", status: "200") },
            try WireExample(
                "SessionCoHost",
                SessionCoHost(id: "u_2", name: "Grace", email: "grace@example.com", reason: "lti-course", since: created)
            ) { try $0.body("POST", "/api/v1/sessions/{code}/hosts", status: "201") },
            try WireExample("Person", Person(id: "u_2", name: "Grace", email: "grace@example.com")) {
                try $0.body("POST", "/api/v1/storyboards/{id}/editors", status: "201")
            },
            try WireExample("StoryboardExport queued", queuedExport) {
                try $0.body("POST", "/api/v1/storyboards/{id}/exports", status: "202")
            },
            try WireExample("StoryboardExport ready", readyExport) {
                try $0.body("GET", "/api/v1/storyboards/{id}/exports/{export}", status: "200")
            },
            try WireExample("StoryboardExport failed", failedExport) { try $0.schema("StoryboardExport") },
            try WireExample("StoryboardImage", image) { try $0.body("POST", "/api/v1/storyboards/{id}/images", status: "201") },
            try WireExample("ShotVersion", [ShotVersion(seq: 4, at: created, firstAt: created, author: "u_1", authorName: "Ada")])
            {
                try $0.body("GET", "/api/v1/storyboards/{id}/shots/{shot}/versions", status: "200")
            },
            try WireExample(
                "RoomDeckAdded, uploaded", RoomDeckAdded(deckId: "d_1", title: "Intro", status: "processing", jobId: "j_1")
            ) {
                try $0.body("POST", "/api/v1/sessions/{code}/decks", status: "201")
            },
            try WireExample("RoomDeckAdded, from the library", RoomDeckAdded(deckId: "d_2", title: "Talk", status: "ready")) {
                try $0.body("POST", "/api/v1/sessions/{code}/decks", status: "201")
            },
            try WireExample(
                "Invitation, pending, in German",
                Invitation(
                    id: "inv_1", email: "weber@schule.example", role: "presenter", delivery: "sent", createdAt: created,
                    expiresAt: created, language: "de")
            ) {
                try $0.body("POST", "/api/v1/invitations", status: "201")
            },
        ] + (try recordingExamples())
    }

    /// Audio takes (replay): recording, ready, failed; the start, a chunk's receipt, the list.
    static func recordingExamples() throws -> [WireExample] {
        let recording = RecordingResponse(
            id: "rec_1", startedAt: created, status: "recording", chunks: 0, bytes: 0, duration: nil, playlistUrl: nil,
            error: nil)
        let ready = RecordingResponse(
            id: "rec_2", startedAt: created, status: "ready", chunks: 31, bytes: 245_000, duration: 61_020,
            playlistUrl: "/api/v1/recordings/rec_2/hls/index.m3u8", error: nil)
        let failed = RecordingResponse(
            id: "rec_3", startedAt: created, status: "failed", chunks: 2, bytes: 20_200, duration: nil, playlistUrl: nil,
            error: FailureDetail(code: "bad_audio", message: "The recording's audio could not be read."))
        return [
            try WireExample("RecordingResponse, recording", recording) {
                try $0.body("POST", "/api/v1/sessions/{code}/recordings", status: "201")
            },
            try WireExample("RecordingResponse, packaging", ready) {
                try $0.body("POST", "/api/v1/recordings/{id}/stop", status: "200")
            },
            try WireExample("RecordingList", RecordingList(recordings: [ready, failed])) {
                try $0.body("GET", "/api/v1/sessions/{code}/recordings", status: "200")
            },
            try WireExample("RecordingStart", RecordingStart(startedAt: created, mimeType: "audio/webm;codecs=opus")) {
                try $0.body("POST", "/api/v1/sessions/{code}/recordings")
            },
            try WireExample("RecordingChunkReceipt", RecordingChunkReceipt(chunks: 3, bytes: 30_100)) {
                try $0.body("PUT", "/api/v1/recordings/{id}/chunks/{n}", status: "200")
            },
        ]
    }

    /// A replay's MP4 export (issue #44): queued, running, ready and published, failed; the
    /// publish request.
    static func replayExportExamples() throws -> [WireExample] {
        let queued = ReplayExport(
            id: "rx_1", status: "queued", progress: 0, duration: nil, downloadUrl: nil, error: nil, channelVideoId: nil)
        let running = ReplayExport(
            id: "rx_1", status: "running", progress: 0.42, duration: nil, downloadUrl: nil, error: nil, channelVideoId: nil)
        let ready = ReplayExport(
            id: "rx_1", status: "ready", progress: 1, duration: 734_000, downloadUrl: "/api/v1/replay-exports/rx_1/file",
            error: nil, channelVideoId: "cv_1")
        let failed = ReplayExport(
            id: "rx_2", status: "failed", progress: 0, duration: nil, downloadUrl: nil,
            error: FailureDetail(code: "encode_failed", message: "The video could not be encoded."), channelVideoId: nil)
        return [
            try WireExample("ReplayExport, queued", queued) {
                try $0.body("POST", "/api/v1/sessions/{code}/replay/exports", status: "202")
            },
            try WireExample("ReplayExport, running", running) {
                try $0.body("GET", "/api/v1/replay-exports/{id}", status: "200")
            },
            try WireExample("ReplayExport, ready", ready) { try $0.body("GET", "/api/v1/replay-exports/{id}", status: "200") },
            try WireExample("ReplayExport, failed", failed) { try $0.body("GET", "/api/v1/replay-exports/{id}", status: "200") },
            try WireExample("ReplayExportPublish", ReplayExportPublish(title: "Lecture 4, replayed", categoryId: "cc_1")) {
                try $0.body("POST", "/api/v1/replay-exports/{id}/publish")
            },
        ]
    }

    /// A replay's timeline (issue #44): every kind of view, a pointer shown and hidden, a stroke's
    /// start, the session with its replay's access, link and pages.
    static func replayExamples() throws -> [WireExample] {
        let page = PageInfo(
            number: 1, width: 720, height: 405, imageUrl: "/blobs/a.jpg", mediumUrl: "/blobs/b.jpg", thumbnailUrl: "/blobs/c.jpg")
        var session = LiveSessionInfo(
            id: "s_2", code: "ABCDEF", kind: .session, joinUrl: "http://podium.local/s/ABCDEF", presenterUrl: nil,
            moderatorUrl: nil, projectorUrl: nil, screenUrl: "http://podium.local/s/ABCDEF/screen", deckId: "d_2",
            title: "Talk", presenter: "Ada", hasPasscode: false, allowDownload: true, live: false, pageCount: 1,
            createdAt: created, startedAt: created, endedAt: created.addingTimeInterval(60), viewers: nil, replay: .link,
            replayUrl: "http://podium.local/s/ABCDEF/replay")
        session.pages = [page]
        let timeline = ReplayTimelineResponse(
            session: session, startedAt: created, duration: 60_000, live: false,
            events: [ReplayEvent(at: 1200, event: SessionEvent(seq: 1, change: .page(2)))],
            views: [
                ReplayView(
                    at: 5100,
                    message: .results(ResultsMessage(pollId: 7, counts: [3, 1], answered: 4, connected: 4, answers: nil))),
                ReplayView(at: 9000, message: .publicQuestions(PublicQuestionsMessage(questions: []))),
                ReplayView(at: 9500, message: .leaderboard(LeaderboardMessage(entries: [], players: 0))),
            ],
            pointer: [ReplayPointer(at: 1500, page: 2, deck: nil, x: 0.41, y: 0.22), ReplayPointer(hiddenAt: 2100)],
            drawn: ["c-41": 3100], recordings: [])
        return [
            try WireExample("ReplayTimelineResponse", timeline) {
                try $0.body("GET", "/api/v1/sessions/{code}/replay", status: "200")
            }
        ]
    }

    /// Every channel wire type (videos, places, quizzes, the catalogue, the viewer, radio), each
    /// field documented as `null` once unset, so `NullEncoded` must send it.
    static func channelExamples() throws -> [WireExample] {
        let chapter = ChannelVideo.Chapter(start: 0, title: "Opening")
        let video = ChannelVideo(
            id: "cv_1", categoryId: "cc_1", subcategoryId: "cc_2", title: "Keynote", description: "The opening talk.",
            chapters: [chapter], posterUrl: "/blobs/p.jpg", duration: 600, free: true, promoted: false, membersOnly: false,
            isNew: true, position: 0, publishedAt: created, updatedAt: created, archivedAt: nil, libraryVideoId: "v_1")
        let draft = ChannelVideo(
            id: "cv_2", categoryId: "cc_1", subcategoryId: nil, title: "Draft", description: "", chapters: [],
            posterUrl: nil, duration: 0, free: false, promoted: false, membersOnly: true, isNew: false, position: 1,
            publishedAt: nil, updatedAt: created, archivedAt: created, libraryVideoId: "v_2")
        let category = ChannelVideoCategory(
            id: "cc_1", parentId: nil, name: "Talks", kind: "video", level: 0, position: 0, updatedAt: created,
            archivedAt: nil)
        let subcategory = ChannelVideoCategory(
            id: "cc_2", parentId: "cc_1", name: "2025", kind: "video", level: 1, position: 0, updatedAt: created,
            archivedAt: created)
        let place = ChannelPlace(
            id: "p_1", categoryId: "pc_1", name: "Café", description: "Coffee", address: "1 Main St", phone: "+1 555",
            website: "https://example.com", openingHours: "8-18", latitude: 52.5, longitude: 13.4,
            imageUrl: "/blobs/i.jpg", position: 0, publishedAt: created, updatedAt: created, archivedAt: nil,
            distanceMeters: 120.5, directions: Directions(to: try GeoPoint(latitude: 52.5, longitude: 13.4), name: "Café"))
        let bare = ChannelPlace(
            id: "p_2", categoryId: nil, name: "Gate", description: "", address: "", phone: "", website: "",
            openingHours: "", latitude: 0, longitude: 0, imageUrl: nil, position: 1, publishedAt: nil, updatedAt: created,
            archivedAt: created, distanceMeters: nil, directions: nil)
        let placeCategory = ChannelPlaceCategory(
            id: "pc_1", name: "Food", position: 0, placeCount: 3, updatedAt: created, archivedAt: nil)
        let taken = ChannelQuizSummary(
            id: "q_1", name: "Trivia", description: "Ten questions", questionCount: 10, position: 0,
            publishedAt: created, updatedAt: created, archivedAt: nil, open: true, membersOnly: false,
            result: .init(score: 7, bestScore: 9, total: 10, takenAt: created, bestAt: created))
        let untaken = ChannelQuizSummary(
            id: "q_2", name: "Draft", description: "", questionCount: 0, position: 1, publishedAt: nil, updatedAt: created,
            archivedAt: created, open: false, membersOnly: true, result: nil)
        let question = ChannelQuiz.Question(
            id: "qq_1", text: "Two and two?",
            answers: [.init(id: "qa_1", text: "Four", correct: true), .init(id: "qa_2", text: "Five", correct: false)])
        let publicQuestion = ChannelQuiz.Question(
            id: "qq_1", text: "Two and two?", answers: [.init(id: "qa_1", text: "Four", correct: nil)])
        let score = ChannelQuizScore(
            score: 1, total: 2, bestScore: 1,
            questions: [
                .init(questionId: "qq_1", chosenAnswerId: "qa_1", correct: true, correctAnswerIds: ["qa_1"]),
                .init(questionId: "qq_2", chosenAnswerId: nil, correct: false, correctAnswerIds: ["qa_4"]),
            ])
        let me = ChannelMe(
            key: "u_1", signedIn: true, member: true, admin: false, name: "Ada",
            channel: .init(name: "Podium", membershipInfo: "Ask us.", membershipURL: "https://example.com/join"))
        let anonymous = ChannelMe(
            key: "v_1", signedIn: false, member: false, admin: false, name: nil,
            channel: .init(name: "Podium", membershipInfo: "", membershipURL: nil))
        let feed = ChannelFeed(
            lastSeenAt: nil,
            items: [
                .init(
                    kind: "video", id: "cv_1", title: "Keynote", description: "", imageUrl: "/blobs/p.jpg",
                    publishedAt: created, url: "/channel#video/cv_1", shareUrl: "/c/video/cv_1"),
                .init(
                    kind: "quiz", id: "q_1", title: "Trivia", description: "", imageUrl: nil, publishedAt: created,
                    url: "/channel#quiz/q_1", shareUrl: "/c/quiz/q_1"),
            ])
        let next = ChannelRadioStation.Track(title: "Waltz", artist: "", website: nil)
        let playing = ChannelRadioStation.Playing(
            title: "Polka", artist: "The Band", website: "https://example.com", startedAt: created, duration: 184.2,
            next: next)
        let station = ChannelRadioStation(
            id: "r_1", radioId: "r_1", name: "Lounge", description: "All day", website: "https://example.com",
            url: "/api/v1/channel/radios/r_1/stream", date: created, position: 0, trackCount: 2, duration: 368.4,
            publishedAt: created, updatedAt: created, archivedAt: nil, nowPlaying: playing)
        let silent = ChannelRadioStation(
            id: "r_2", radioId: "r_2", name: "Draft", description: "", website: nil, url: "/api/v1/channel/radios/r_2/stream",
            date: nil, position: 1, trackCount: 0, duration: 0, publishedAt: nil, updatedAt: created, archivedAt: created,
            nowPlaying: .init(title: "Solo", artist: "", website: nil, startedAt: created, duration: 10, next: nil))
        return [
            try WireExample("ChannelVideo, published", video) { try $0.schema("ChannelVideo") },
            try WireExample("ChannelVideo, an archived draft", [draft]) {
                try $0.body("GET", "/api/v1/channel/videos", status: "200")
            },
            try WireExample("ChannelVideoCategory", [category, subcategory]) {
                try $0.body("GET", "/api/v1/channel/videos/categories", status: "200")
            },
            try WireExample(
                "ChannelVideoStream, resumed", ChannelVideoStream(url: "/stream/t/master.m3u8", expiresAt: created, resumeAt: 42)
            ) { try $0.body("GET", "/api/v1/channel/videos/{id}/stream", status: "200") },
            try WireExample(
                "ChannelVideoStream, from the start",
                ChannelVideoStream(url: "/stream/t/master.m3u8", expiresAt: created, resumeAt: nil)
            ) { try $0.body("GET", "/api/v1/channel/videos/{id}/stream", status: "200") },
            try WireExample("ChannelPlace, for a member", place) {
                try $0.body("GET", "/api/v1/channel/pois/{id}", status: "200")
            },
            try WireExample("ChannelPlace, bare", [bare]) { try $0.body("GET", "/api/v1/channel/pois", status: "200") },
            try WireExample("ChannelPlaceCategory", placeCategory) {
                try $0.body("POST", "/api/v1/channel/pois/categories", status: "201")
            },
            try WireExample(
                "ChannelMap with tiles",
                ChannelMap(
                    basemap: .init(tileUrl: "/tiles/{z}/{x}/{y}.png", minZoom: 0, maxZoom: 6, attribution: "© OpenStreetMap"),
                    venueImageUrl: "/blobs/v.jpg")
            ) { try $0.body("GET", "/api/v1/channel/map", status: "200") },
            try WireExample("ChannelMap without", ChannelMap(basemap: nil, venueImageUrl: nil)) {
                try $0.body("GET", "/api/v1/channel/map", status: "200")
            },
            try WireExample("ChannelQuizSummary", [taken, untaken]) {
                try $0.body("GET", "/api/v1/channel/quizzes", status: "200")
            },
            try WireExample("ChannelQuiz, for its admin", ChannelQuiz(quiz: untaken, questions: [question])) {
                try $0.body("POST", "/api/v1/channel/quizzes", status: "201")
            },
            try WireExample("ChannelQuiz, public", ChannelQuiz(quiz: taken, questions: [publicQuestion])) {
                try $0.body("GET", "/api/v1/channel/quizzes/{id}", status: "200")
            },
            try WireExample(
                "ChannelQuizSubmission",
                ChannelQuizSubmission(answers: [ChannelQuizChoice(questionId: "qq_1", answerId: "qa_1")])
            ) { try $0.body("POST", "/api/v1/channel/quizzes/{id}/attempts") },
            try WireExample("ChannelQuizScore", score) {
                try $0.body("POST", "/api/v1/channel/quizzes/{id}/attempts", status: "200")
            },
            try WireExample("ChannelMe, a member", me) { try $0.body("GET", "/api/v1/channel/me", status: "200") },
            try WireExample("ChannelMe, anonymous", anonymous) { try $0.schema("ChannelViewer") },
            try WireExample("ChannelFeed", feed) { try $0.body("GET", "/api/v1/channel/new", status: "200") },
            try WireExample("ChannelRadioStation", [station, silent]) {
                try $0.body("GET", "/api/v1/channel/radios", status: "200")
            },
            try WireExample(
                "ChannelRadioStream, a guest",
                ChannelRadioStream(url: "/stream/t/live.m3u8", expiresAt: created, remainingToday: 845, resetsAt: created)
            ) { try $0.body("GET", "/api/v1/channel/radios/{id}/stream", status: "200") },
            try WireExample(
                "ChannelRadioStream, a member",
                ChannelRadioStream(url: "/stream/t/live.m3u8", expiresAt: created, remainingToday: nil, resetsAt: nil)
            ) { try $0.body("GET", "/api/v1/channel/radios/{id}/stream", status: "200") },
        ]
    }

    /// The radio's `nowplaying` event (Server-Sent Events, not a socket frame) has the shape of
    /// docs/protocol.md's example, `null`s included; a station's track and the event decode back.
    @Test func theRadioEventEncodesAsTheProtocolDocumentShows() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let start = try #require(text.range(of: "event: nowplaying\ndata: "), "protocol.md shows no nowplaying event")
        let end = try #require(text.range(of: "}\n", range: start.upperBound..<text.endIndex))
        let data = text[start.upperBound..<end.upperBound].split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.joined()
        let expected = try JSONValue(text: data)
        let playing = ChannelRadioStation.Playing(
            title: "Polka", artist: "The Band", website: "https://example.com", startedAt: Self.created, duration: 184.2,
            next: .init(title: "Waltz", artist: "", website: nil))
        let event = ChannelRadioNowPlaying(
            radioId: "r_1", trackId: "t_1", playing: playing, elapsed: 12.5, remaining: 171.7, remainingToday: 845)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let encoded = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(event))
        let problems = expected.shapeProblems(in: encoded, at: "nowplaying")
        #expect(problems.isEmpty, "\(problems)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(ChannelRadioNowPlaying.self, from: encoder.encode(event)) == event)
        #expect(event.playing == playing)
        // A field sent as null and one left out both read as nil.
        let track = try decoder.decode(ChannelRadioStation.Track.self, from: Data(#"{"title": "A", "artist": "B"}"#.utf8))
        #expect(track == ChannelRadioStation.Track(title: "A", artist: "B", website: nil))
        #expect(String(decoding: try JSONEncoder().encode(track), as: UTF8.self).contains(#""website":null"#))
    }

    /// The REST wire types have the fields and JSON types of their schemas in
    /// Public/openapi.yaml: no field the document lacks, every required field there, `null` only
    /// where the document allows it, strings within their `enum`.
    @Test func theWireTypesEncodeAsTheOpenAPIDocumentSays() throws {
        let schemas = try OpenAPISchemas.shared.get()
        for example in try Self.restExamples() + Self.channelExamples() + Self.replayExamples()
            + Self.replayExportExamples()
        {
            let problems = schemas.problems(example.json, try example.schema(schemas))
            #expect(problems.isEmpty, "\(example.name) (\(example.json)): \(problems)")
        }
    }

    /// The schema check finds what it is for (a check that finds nothing would pass the test above).
    @Test func theSchemaCheckFindsAFieldTooManyAMissingOneAndAWrongNull() throws {
        let schemas = try OpenAPISchemas.shared.get()
        let folder = try schemas.schema("Folder")
        let extra = try JSONValue(text: #"{"id": "f", "name": "n", "parentId": null, "colour": "red"}"#)
        let missing = try JSONValue(text: #"{"id": "f", "name": "n"}"#)
        let wrongNull = try JSONValue(text: #"{"id": "f", "name": null, "parentId": null}"#)
        #expect(schemas.problems(extra, folder) == ["$.colour: not in the document"])
        #expect(schemas.problems(missing, folder) == ["$.parentId: missing"])
        #expect(schemas.problems(wrongNull, folder) == ["$.name: null where the document says string"])
        // A reference to a schema the document lacks (the channel's places and quizzes were once
        // filed under `components.headers`) checks nothing: it is a problem itself.
        #expect(
            schemas.problems(missing, .object(["$ref": .string("#/components/headers/Folder")]))
                == ["$: #/components/headers/Folder is not in the document"])
        let deck = try JSONValue(text: #"{"id": "d", "title": "t", "status": "lost", "createdAt": "x", "pageCount": 1.5}"#)
        #expect(
            schemas.problems(deck, try schemas.schema("Deck")) == [
                "$.pageCount: number where the document says integer",
                "$.status: \"lost\" is not one of [\"processing\", \"ready\", \"failed\"]",
            ])
    }

    /// The frames of the wire module, by the names of docs/protocol.md's server examples.
    static let wireFrames: [String: @Sendable (Data) throws -> Data] = [
        "pong": roundTrip(Pong.self), "pong (no t)": roundTrip(Pong.self), "deckFailed": roundTrip(DeckFailedMessage.self),
        "storyboard welcome": roundTrip(StoryboardWelcome.self),
        "storyboard welcome (resumed)": roundTrip(StoryboardWelcome.self), "storyboard ack": roundTrip(StoryboardAck.self),
        "storyboard edited": roundTrip(StoryboardEdited.self), "storyboard editors": roundTrip(StoryboardEditors.self),
        "storyboard drawing": roundTrip(StoryboardDrawing.self),
        "storyboard drawing (ended)": roundTrip(StoryboardDrawing.self),
        "storyboard cursor": roundTrip(StoryboardCursor.self), "storyboard error": roundTrip(StoryboardErrorMessage.self),
        "sessions": roundTrip(LobbyMessage.self),
    ]

    /// Dates as the server writes them and the SDK reads them (ISO 8601).
    static func roundTrip<Frame: Codable & SendableMetatype>(_ type: Frame.Type) -> @Sendable (Data) throws -> Data {
        { data in
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            return try encoder.encode(try decoder.decode(Frame.self, from: data))
        }
    }

    /// Every frame of the wire module, decoded from docs/protocol.md's example (as the SDK reads
    /// it) and encoded again (as the server writes it), has the example's shape: its `type`, the
    /// same fields of the same JSON types, `null` where the example shows `null`.
    @Test func theWireFramesEncodeAsTheProtocolDocumentShows() throws {
        let examples = Dictionary(
            try ProtocolDocumentTests.examples().filter { $0.side == .server }.map { ($0.name, $0) },
            uniquingKeysWith: { first, _ in first })
        for (name, roundTrip) in Self.wireFrames.sorted(by: { $0.key < $1.key }) {
            let example = try #require(examples[name], "protocol.md has no server example \(name)")
            let expected = try JSONValue(text: example.text)
            let encoded = try JSONDecoder().decode(JSONValue.self, from: try roundTrip(Data(example.text.utf8)))
            let problems = expected.shapeProblems(in: encoded, at: name)
            #expect(problems.isEmpty, "\(name): \(problems)")
            #expect(encoded["type"] == expected["type"], "\(name)")
        }
        // The live socket's reader takes the same frames into typed cases.
        let pong = Pong(t: nil, server: 1_764_080_123.461)
        #expect(try LiveMessage.decode(try Self.text(pong)) == .pong(pong))
        let failed = DeckFailedMessage(
            deckId: "d_1", title: "Broken", error: FailureDetail(code: "corrupt", message: "The PDF could not be read."))
        #expect(try LiveMessage.decode(try Self.text(failed)) == .deckFailed(failed))
    }

    static func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// The protocol document's lines, split into the storyboard socket's parts and the rest.
    static func protocolTypes() throws -> (live: Set<String>, storyboard: Set<String>) {
        let text = try String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let pattern = try Regex(#""type":\s*"([A-Za-z]+)""#)
        var live: Set<String> = []
        var storyboard: Set<String> = []
        var section = ""
        var subsection = ""
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("## ") { (section, subsection) = (line, "") }
            if line.hasPrefix("### ") { subsection = line }
            let isStoryboard = section == "## Storyboards" || subsection == "### Storyboards"
            for match in line.matches(of: pattern) {
                guard let type = match.output[1].substring.map(String.init) else { continue }
                if isStoryboard { storyboard.insert(type) } else { live.insert(type) }
            }
        }
        return (live, storyboard)
    }

    @Test func everyMessageTypeOfTheProtocolDocumentIsOneTheSDKKnows() throws {
        let (live, storyboard) = try Self.protocolTypes()
        #expect(live.count > 50, "the parser found \(live.count) types")
        let sdkLive = LiveMessage.knownTypes.union(LiveCommands.types).union(LobbyUpdate.types)
        #expect(
            live.subtracting(sdkLive).sorted().isEmpty, "documented, unknown to the SDK: \(live.subtracting(sdkLive).sorted())")
        #expect(sdkLive.subtracting(live).sorted().isEmpty, "in the SDK, not documented: \(sdkLive.subtracting(live).sorted())")
        let sdkStoryboard = StoryboardLiveSession.clientTypes.union(StoryboardLiveSession.serverTypes)
        #expect(storyboard.subtracting(sdkStoryboard).sorted().isEmpty, "\(storyboard.subtracting(sdkStoryboard).sorted())")
        #expect(sdkStoryboard.subtracting(storyboard).sorted().isEmpty, "\(sdkStoryboard.subtracting(storyboard).sorted())")
    }

    @Test func everyServerExampleDecodesIntoATypedMessage() throws {
        let examples = try ProtocolDocumentTests.examples()
        let server = examples.filter { $0.side == .server && !$0.name.hasPrefix("storyboard") && $0.name != "sessions" }
        #expect(server.count > 40)
        for example in server {
            let frames = Self.objects(example.text)
            #expect(!frames.isEmpty, "\(example.name): no JSON")
            for frame in frames {
                do {
                    let message = try LiveMessage.decode(frame)
                    if case .other(let type, _) = message { Issue.record("\(example.name): \(type) decoded as .other") }
                } catch {
                    Issue.record("\(example.name) (protocol.md line \(example.line)) does not decode: \(error)")
                }
            }
        }
    }

    @Test func everyClientExampleIsAMessageTheSDKSends() throws {
        let examples = try ProtocolDocumentTests.examples().filter { $0.side == .client }
        #expect(!examples.isEmpty)
        for example in examples {
            for frame in Self.objects(example.text) {
                let message = try JSONDecoder().decode(ClientMessage.self, from: Data(frame.utf8))
                #expect(LiveCommands.types.contains(LiveCommands.type(of: message)), "\(example.name)")
            }
        }
    }

    /// The example as one JSON object, or one per line when it shows several.
    static func objects(_ text: String) -> [String] {
        if (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil { return [text] }
        return text.components(separatedBy: "\n").filter {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil
        }
    }
}
