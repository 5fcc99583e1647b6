import Foundation
import PodiumClient
import PodiumCore
import Synchronization
import Testing

/// The SDK's REST areas against the real server in-process: sign-in, library, jobs, users.
@Suite("Swift SDK: library and accounts", .timeLimit(.minutes(3)))
struct SDKLibraryTests {
    @Test(arguments: TestStores.kinds) func signsInUploadsWithProgressAndFilesDecks(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let podium = client.sdk()
            do {
                try await podium.signIn(email: "admin", password: "wrong")
                Issue.record("a wrong password signed in")
            } catch let error as PodiumError {
                #expect(error.status == 401)
            }
            let me = try await podium.signIn(email: "admin", password: TestServer.adminPassword)
            #expect(me.role == "admin")
            #expect(try await podium.me().id == me.id)
            #expect(try await podium.limits().uploadTypes.contains("application/pdf"))

            // Upload with progress, then wait for the job and the deck "as they land".
            let file = TestServer.demoDeck
            let size = Int64(try Data(contentsOf: file).count)
            let seen = Mutex<[TransferProgress]>([])
            let uploaded = try await podium.uploadDeck(file: file, title: "C++ from Swift") { progress in
                seen.withLock { $0.append(progress) }
            }
            let progress = seen.withLock { $0 }
            #expect(!progress.isEmpty, "no progress reported")
            #expect(progress.last?.bytes == size)
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.bytes <= $1.bytes })
            #expect(uploaded.item.status == "processing")
            let job = try await podium.waitForJob(id: uploaded.jobId)
            #expect(job.state == "done")
            #expect(job.subjectId == uploaded.item.id)
            let deck = try await podium.waitUntilReady(deck: uploaded.item.id)
            #expect(deck.pages?.count == deck.pageCount)
            // A `+` in a title reaches the server as a plus (URLComponents leaves it bare, read as a space).
            #expect(deck.title == "C++ from Swift")

            // Folders and moves.
            let folder = try await podium.createFolder(name: "Talks")
            #expect(try await podium.folders().map(\.id) == [folder.id])
            let moved = try await podium.updateDeck(id: deck.id, title: "Renamed", folderId: .set(folder.id))
            #expect(moved.folderId == folder.id && moved.title == "Renamed")
            #expect(try await podium.decks(folderId: folder.id).map(\.id) == [deck.id])
            #expect(try await podium.updateDeck(id: deck.id, folderId: .set(nil)).folderId == nil)
            #expect(try await podium.updateFolder(id: folder.id, name: "Old talks").name == "Old talks")
            try await podium.deleteFolder(id: folder.id)
            #expect(try await podium.folders().isEmpty)

            // The question bank.
            let poll = Poll(kind: .choice, question: "Tea or coffee?", choices: ["Tea", "Coffee"])
            let question = try await podium.addBankQuestion(deckId: deck.id, poll: poll)
            #expect(try await podium.questionBank(deckId: deck.id).map(\.id) == [question.id])
            try await podium.deleteBankQuestion(deckId: deck.id, questionId: question.id)
            #expect(try await podium.questionBank(deckId: deck.id).isEmpty)

            // Files: the PDF back into a file, a HEAD, a page image.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let pdf = directory.appendingPathComponent("deck.pdf")
            let downloaded = Mutex<Int64>(0)
            try await podium.downloadDeckPDF(id: deck.id, to: pdf) { progress in downloaded.withLock { $0 = progress.bytes } }
            let bytes = try Data(contentsOf: pdf)
            #expect(bytes.starts(with: Data("%PDF".utf8)))
            #expect(downloaded.withLock { $0 } == Int64(bytes.count))
            #expect(try await podium.fileInfo(deckPDF: deck.id).length == Int64(bytes.count))
            let thumbnail = try #require(deck.pages?.first?.thumbnailUrl)
            #expect(try await podium.blob(thumbnail).starts(with: [0xFF, 0xD8]))

            // A refusal carries the server's code and status; a download refused leaves no file.
            do {
                _ = try await podium.uploadDeck(pdf: Data("hello".utf8))
                Issue.record("a text file was accepted as a deck")
            } catch let error as PodiumError {
                #expect(error.code == "unsupported_type")
                #expect(error.status == 415)
            }
            let nothing = directory.appendingPathComponent("missing.pdf")
            await #expect(throws: PodiumError.self) { try await podium.downloadDeckPDF(id: "d_missing", to: nothing) }
            #expect(!FileManager.default.fileExists(atPath: nothing.path))

            try await podium.deleteDeck(id: deck.id)
            #expect(try await podium.decks().isEmpty)
            let oldToken = podium.token
            try await podium.signOut()
            #expect(podium.token == nil)
            await #expect(throws: PodiumError.self) { try await PodiumClient(baseURL: podium.baseURL, token: oldToken).me() }
        }
    }

    @Test func accountsAndPasswords() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let admin = try await client.adminSDK()
            let ann = try await admin.createUser(email: "ann@example.org", password: "first password", name: "Ann")
            #expect(ann.role == "presenter" && !ann.member)
            do {
                _ = try await admin.createUser(email: "ann@example.org", password: "another one")
                Issue.record("the address was taken twice")
            } catch let error as PodiumError {
                #expect(error.code == "email_taken" && error.status == 409)
            }
            #expect(try await admin.users(search: "ANN").map(\.id) == [ann.id])
            #expect(try await admin.setMember(userId: ann.id, true).member)

            let annClient = client.sdk()
            try await annClient.signIn(email: "ann@example.org", password: "first password")
            _ = try await admin.setPassword(userId: ann.id, "second password")
            // The old sign-in ended; the old password no longer works; the new one does.
            await #expect(throws: PodiumError.self) { try await annClient.me() }
            await #expect(throws: PodiumError.self) {
                try await client.sdk().signIn(email: "ann@example.org", password: "first password")
            }
            try await annClient.signIn(email: "ann@example.org", password: "second password")
            #expect(try await annClient.me().member)
            // Not an admin: refused with the server's code.
            do {
                _ = try await annClient.users()
                Issue.record("a presenter listed the accounts")
            } catch let error as PodiumError {
                #expect(error.status == 403)
            }
            await #expect(throws: PodiumError.self) { try await admin.setPassword(userId: ann.id, "short") }
        }
    }

    @Test(arguments: TestStores.kinds) func storyboardsVideosAndTheChannelAnswer(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let podium = try await client.adminSDK()
            #expect(try await podium.videos().isEmpty)
            #expect(try await podium.isHealthy())
            #expect(try await podium.readiness())
            let board = try await podium.createStoryboard(title: "Chase scene", aspectRatio: "4:3")
            let id = board.id
            #expect(board.owned && board.aspectRatio == "4:3" && board.folderId == nil)
            #expect(try await podium.storyboard(id: id).title == "Chase scene")
            #expect(try await podium.storyboards().map(\.id) == [id])
            let content = try #require(board.content)
            let scene = try #require(content.scenes.first?.id)
            let shot = try #require(content.scenes.first?.shots.first?.id)

            let editor = try await podium.editStoryboard(id: id)
            #expect(editor.welcome.storyboard == content && editor.welcome.editors.map(\.editor) == [editor.welcome.you.editor])
            try await editor.edit(.renameScene(scene: scene, title: "Opening"), id: "e-1")
            try await editor.edit(.updateShot(shot: shot, dialogue: "Hold on!"), id: "e-2")
            var acked: Set<String> = []
            var edits: [StoryboardEdit] = []
            for await message in editor.messages {
                if case .ack(let ack, let seq) = message, seq > editor.welcome.seq { acked.insert(ack) }
                if case .edited(_, _, let by, let edit) = message, by != nil { edits.append(edit) }
                if acked == ["e-1", "e-2"] && edits.count == 2 { break }
            }
            #expect(acked == ["e-1", "e-2"])
            #expect(edits == [.renameScene(scene: scene, title: "Opening"), .updateShot(shot: shot, dialogue: "Hold on!")])
            await editor.close()
            // The project and its shots, decoded into PodiumCore's model.
            let shown = try await podium.storyboard(id: id)
            #expect(shown.content?.scenes.first?.title == "Opening")
            #expect(shown.content?.scenes.first?.shots.first?.dialogue == "Hold on!")
            #expect(shown.sceneCount == 1 && shown.shotCount == 1 && shown.seq >= 2)
            let versions = try await podium.shotVersions(id: id, shot: shot)
            let newest = try #require(versions.first)
            #expect(newest.authorName.isEmpty == false && newest.firstAt <= newest.at)
            #expect(try await podium.shotVersion(id: id, shot: shot, seq: newest.seq).dialogue == "Hold on!")

            let renamed = try await podium.updateStoryboard(id: id, title: "Car chase", description: "Night, rain")
            #expect(renamed.title == "Car chase" && renamed.description == "Night, rain")
            #expect(try await podium.storyboardEditors(id: id).isEmpty)
            _ = try await podium.createUser(email: "ed@example.com", password: "correct horse 1", name: "Ed")
            let invited = try await podium.inviteStoryboardEditor(id: id, email: "ed@example.com")
            #expect(invited.name == "Ed")
            #expect(try await podium.storyboardEditors(id: id).map(\.email) == ["ed@example.com"])
            try await podium.removeStoryboardEditor(id: id, userId: invited.id)
            #expect(try await podium.storyboardExports(id: id).isEmpty)

            // A quiz of the channel, scored by the server.
            let created = try await podium.channelQuizzes.create([
                "name": "Prague", "description": "", "published": true,
                "questions": [
                    [
                        "text": "Capital of Czechia?",
                        "answers": [["text": "Brno", "correct": false], ["text": "Praha", "correct": true]],
                    ],
                    [
                        "text": "Oldest university?",
                        "answers": [["text": "Charles", "correct": true], ["text": "Masaryk", "correct": false]],
                    ],
                ],
            ])
            let quizId = try #require(created["quiz"]?["id"]?.string)
            let questions = try #require(created["questions"]?.array)
            func answer(_ question: Int, _ index: Int) throws -> ChannelQuizChoice {
                ChannelQuizChoice(
                    questionId: try #require(questions[question]["id"]?.string),
                    answerId: try #require(questions[question]["answers"]?[index]?["id"]?.string))
            }
            let score = try await podium.submitChannelQuiz(id: quizId, answers: [try answer(0, 1), try answer(1, 1)])
            #expect(score.score == 1 && score.total == 2 && score.bestScore == 1)
            #expect(score.questions.map(\.correct) == [true, false])
            #expect(score.questions[1].chosenAnswerId == (try answer(1, 1)).answerId)

            // A place of the channel, its directions and the map.
            let castle = try await podium.channelPlaces.create([
                "name": "Prague Castle", "latitude": 50.0911, "longitude": 14.4016, "published": true,
            ]).decode(as: ChannelPlace.self)
            #expect(castle.name == "Prague Castle" && castle.imageUrl == nil && castle.publishedAt != nil)
            let place = try await podium.channelPlaces.get(id: castle.id).decode(as: ChannelPlace.self)
            #expect(place.latitude == 50.0911 && place.directions?.geo.hasPrefix("geo:50.0911,14.4016?q=") == true)
            #expect(try await podium.channelPlaceDirections(id: castle.id).osm.contains("openstreetmap.org"))
            #expect(try await podium.channelMap().venueImageUrl == nil)

            // The channel's video lists decode (empty: no library video is processed here).
            #expect(try await podium.channelVideoLibrary().isEmpty)
            #expect(try await podium.channelFavourites().isEmpty)
            #expect(try await podium.channelContinueWatching().isEmpty)

            // The catalogues, typed.
            #expect(try await podium.channelPlaces.list(as: ChannelPlace.self).map(\.id) == [castle.id])
            let category = try await podium.channelPlaceCategories.create(["name": "Sights"], as: ChannelPlaceCategory.self)
            #expect(try await podium.channelPlaceCategories.list(as: ChannelPlaceCategory.self).map(\.name) == ["Sights"])
            #expect(category.placeCount == 0 && category.archivedAt == nil)
            let quizzes = try await podium.channelQuizzes.list(as: ChannelQuizSummary.self)
            #expect(quizzes.map(\.id) == [quizId] && quizzes.first?.result?.bestScore == 1 && quizzes.first?.questionCount == 2)
            let quiz = try await podium.channelQuizzes.get(id: quizId, as: ChannelQuiz.self)
            #expect(quiz.questions.map(\.text) == ["Capital of Czechia?", "Oldest university?"])
            let videoCategory = try await podium.channelVideoCategories.create(["name": "Talks"], as: ChannelVideoCategory.self)
            #expect(videoCategory.level == 0 && videoCategory.parentId == nil)
            #expect(try await podium.channelVideoCategories.list(as: ChannelVideoCategory.self).map(\.id) == [videoCategory.id])
            #expect(try await podium.channelVideos.list(as: ChannelVideo.self).isEmpty)
            #expect(try await podium.channelRadios.list(as: ChannelRadioStation.self).isEmpty)

            let me = try await podium.channelMe()
            #expect(me.signedIn && me.admin && me.member && !me.channel.name.isEmpty)
            let feed = try await podium.channelNew()
            #expect(feed.lastSeenAt == nil)
            #expect(Set(feed.items.map(\.id)).isSuperset(of: [castle.id, quizId]))
            try await podium.markChannelSeen()
            #expect(try await podium.channelNew().lastSeenAt != nil)
            #expect(try await podium.channelQuizzes.list().array != nil)
            try await podium.deleteStoryboard(id: id)
            await #expect(throws: PodiumError.self) { try await podium.storyboard(id: id) }
        }
    }

    /// A radio station, a track packaged by real ffmpeg, and the listener's stream, typed.
    @Test(arguments: TestStores.kinds) func aRadioStationItsTracksAndItsStream(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-radio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let tone = try await ChannelRadioServerTests.tone(3, frequency: 440, in: work)
        try await server.run { client in
            let podium = try await client.adminSDK()
            let station = try await podium.channelRadios.create(["name": "Folk", "description": "Songs", "published": true])
                .decode(as: ChannelRadioStation.self)
            #expect(station.name == "Folk" && station.trackCount == 0 && station.nowPlaying == nil)
            #expect(station.url == "/api/v1/channel/radios/\(station.id)/stream")
            let uploaded = try await podium.uploadChannelRadioTrack(
                radioId: station.id, file: tone, title: "First", artist: "Band")
            #expect(uploaded.item.title == "First" && uploaded.item.radioId == station.id)
            #expect(try await podium.waitForJob(id: uploaded.jobId).state == "done")
            let tracks = try await podium.channelRadioTracks(id: station.id)
            let track = try #require(tracks.first)
            #expect(tracks.count == 1 && track.status == "ready" && track.error == nil && track.segmentCount >= 1)
            #expect(abs(track.duration - 3) < 0.5)
            let renamed = try await podium.updateChannelRadioTrack(
                radioId: station.id, trackId: track.id, artist: "The Band", website: .set("https://example.com"))
            #expect(renamed.title == "First" && renamed.artist == "The Band" && renamed.website == "https://example.com")
            let playing = try await podium.channelRadios.get(id: station.id).decode(as: ChannelRadioStation.self)
            #expect(playing.trackCount == 1 && playing.nowPlaying?.title == "First" && playing.nowPlaying?.next?.title == "First")
            var nowPlaying: ChannelRadioNowPlaying?
            for try await event in podium.channelRadioEvents(id: station.id) {
                if case .nowPlaying(let playing) = event {
                    nowPlaying = playing
                    break
                }
            }
            #expect(nowPlaying?.trackId == track.id && nowPlaying?.title == "First", "\(String(describing: nowPlaying))")
            #expect(nowPlaying?.remainingToday == nil)
            let stream = try await podium.channelRadioStream(id: station.id)
            #expect(stream.url.hasPrefix("/stream/") && stream.url.hasSuffix("/live.m3u8") && stream.remainingToday == nil)
        }
    }
}
