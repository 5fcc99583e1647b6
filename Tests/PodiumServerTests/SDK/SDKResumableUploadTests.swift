import ChildProcesses
import Foundation
import HTTPTypes
import NIOCore
import PodiumClient
import Synchronization
import Testing

/// The SDK's resumable uploads, the parts without a server: `Upload-Metadata`, the header
/// fields it reads, an upload's fingerprint, the resume stores (the CLI's JSON file) and the
/// back-off.
@Suite("Swift SDK: resumable uploads, offline")
struct SDKResumableUploadOfflineTests {
    @Test func metadataIsTusKeyBase64PairsInAFixedOrder() throws {
        let deck = UploadDestination.deck(title: "C++ talk, part 2", folderId: "f_1").uploadMetadata(filename: "talk.pdf")
        #expect(
            deck == "target \(Self.b64("deck")),title \(Self.b64("C++ talk, part 2")),folderId \(Self.b64("f_1")),"
                + "filename \(Self.b64("talk.pdf"))")
        #expect(
            ResumableUploadHeaders.parseMetadata(deck)
                == ["target": "deck", "title": "C++ talk, part 2", "folderId": "f_1", "filename": "talk.pdf"])
        // Nothing set: only the target; a room's code is its `session`, a moderator as presenter `as`.
        #expect(UploadDestination.video(title: nil, folderId: nil).uploadMetadata(filename: nil) == "target dmlkZW8=")
        let room = UploadDestination.roomVideo(code: "K7M4QX", title: "Zoë's clip", asPresenter: true)
        #expect(
            ResumableUploadHeaders.parseMetadata(room.uploadMetadata(filename: "clip ü.mp4"))
                == [
                    "target": "room-video", "session": "K7M4QX", "title": "Zoë's clip", "as": "presenter",
                    "filename": "clip ü.mp4",
                ])
        #expect(
            ResumableUploadHeaders.parseMetadata(
                UploadDestination.roomDeck(code: "ABCDEF", asPresenter: false).uploadMetadata(filename: nil))
                == ["target": "room-deck", "session": "ABCDEF"])
        #expect(UploadDestination.roomDeck(code: "ABCDEF", asPresenter: false).target == .roomDeck)
        // A key alone reads as empty; a value that is not base64 is malformed.
        #expect(
            ResumableUploadHeaders.parseMetadata("is_confidential,target ZGVjaw==") == ["is_confidential": "", "target": "deck"])
        #expect(ResumableUploadHeaders.parseMetadata("target not*base64") == nil)
    }

    static func b64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test func readsOffsetsLengthsAndExpiryDates() {
        #expect(ResumableUploadHeaders.byteCount("0") == 0)
        #expect(ResumableUploadHeaders.byteCount(" 8388608 ") == 8_388_608)
        for bad in ["", "-1", "1e3", "12a", "+5", "٣", "99999999999999999999"] {
            #expect(ResumableUploadHeaders.byteCount(bad) == nil, "\(bad)")
        }
        #expect(ResumableUploadHeaders.byteCount(nil) == nil)
        #expect(
            ResumableUploadHeaders.date("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(ResumableUploadHeaders.date("yesterday") == nil)
    }

    @Test func aFingerprintChangesWithTheFileTheServerAndTheDestination() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("talk.mp4")
        try Data(repeating: 7, count: 1000).write(to: file)
        let podium = PodiumClient(baseURL: URL(string: "http://podium.local:8080")!)
        let video = UploadDestination.video(title: "Talk", folderId: nil)
        let first = try podium.uploadFingerprint(file: file, destination: video)
        #expect(first == (try podium.uploadFingerprint(file: file, destination: video)))
        #expect(first.contains(file.resolvingSymlinksInPath().path))
        #expect(first.contains("http://podium.local:8080"))
        // The same file through a relative path is the same upload.
        let roundabout = URL(fileURLWithPath: directory.path + "/./elsewhere/../talk.mp4")
        #expect(try podium.uploadFingerprint(file: roundabout, destination: video) == first)

        var others: Set<String> = [first]
        others.insert(try podium.uploadFingerprint(file: file, destination: .video(title: "Talk", folderId: "f_1")))
        others.insert(try podium.uploadFingerprint(file: file, destination: .deck(title: "Talk", folderId: nil)))
        others.insert(
            try podium.uploadFingerprint(file: file, destination: .roomVideo(code: "K7M4QX", title: "Talk", asPresenter: false)))
        others.insert(
            try PodiumClient(baseURL: URL(string: "http://other.local:8080")!).uploadFingerprint(file: file, destination: video))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: file.path)
        others.insert(try podium.uploadFingerprint(file: file, destination: video))
        try Data(repeating: 7, count: 1001).write(to: file)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: file.path)
        others.insert(try podium.uploadFingerprint(file: file, destination: video))
        #expect(others.count == 7, "a changed file, server or destination kept the fingerprint")
        #expect(throws: (any Error).self) {
            try podium.uploadFingerprint(file: directory.appendingPathComponent("gone"), destination: video)
        }
    }

    @Test func theCLIStateFileIsUnderXDGStateHomeElseTheHomeDirectory() {
        #expect(
            FileUploadResumeStore.standardFile(environment: ["XDG_STATE_HOME": "/var/state", "HOME": "/home/ann"]).path
                == "/var/state/podium/uploads.json")
        #expect(
            FileUploadResumeStore.standardFile(environment: ["HOME": "/home/ann"]).path
                == "/home/ann/.local/state/podium/uploads.json")
        // A relative XDG_STATE_HOME is invalid (XDG Base Directory) and ignored.
        #expect(
            FileUploadResumeStore.standardFile(environment: ["XDG_STATE_HOME": "state", "HOME": "/home/ann"]).path
                == "/home/ann/.local/state/podium/uploads.json")
    }

    @Test func theStateFileRemembersAcrossInstancesAndForgets() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("state/podium/uploads.json")
        let store = FileUploadResumeStore(file: file)
        #expect(await store.uploadURL(for: "a") == nil)
        let upload = URL(string: "http://podium.local:8080/api/v1/uploads/u0123456789abcdef0123456789abcdef")!
        await store.remember(upload, for: "a")
        await store.remember(URL(string: "http://podium.local:8080/api/v1/uploads/u2")!, for: "b\n/path with spaces")
        // Another process (another instance) reads what this one wrote.
        let again = FileUploadResumeStore(file: file)
        #expect(await again.uploadURL(for: "a") == upload)
        #expect(again.all.count == 2)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: String]
        #expect(json?["a"] == upload.absoluteString)
        await again.forget("a")
        #expect(await store.uploadURL(for: "a") == nil)
        #expect(store.all.keys.sorted() == ["b\n/path with spaces"])
        // An unreadable file reads as empty and is written anew.
        try Data("not json".utf8).write(to: file)
        #expect(store.all.isEmpty)
        await store.remember(upload, for: "c")
        #expect(await again.uploadURL(for: "c") == upload)

        let memory = MemoryUploadResumeStore()
        await memory.remember(upload, for: "a")
        #expect(await memory.uploadURL(for: "a") == upload)
        await memory.forget("a")
        #expect(memory.all.isEmpty)
    }

    @Test func chunksAreAtMostEightMiBAndTheBackOffLastsAboutAMinute() {
        #expect(UploadPolicy.maximumChunkBytes == 8 * 1024 * 1024)
        #expect(UploadPolicy(chunkBytes: 100 << 20).chunkBytes == 8 << 20)
        #expect(UploadPolicy(chunkBytes: 0).chunkBytes == 1)
        let delays = UploadPolicy.standardDelays
        #expect(Array(delays.prefix(4)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
        let total = delays.reduce(Duration.zero, +)
        #expect(total >= .seconds(50) && total <= .seconds(70), "\(total)")
        #expect(PodiumClient(baseURL: URL(string: "http://x")!).uploadPolicy.chunkBytes == 8 << 20)
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-uploads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// The SDK's resumable uploads against the real server in-process, through ``CuttingProxy``
/// (which cuts connections as a bad network does and records every `PATCH`'s `Upload-Offset`):
/// an upload cut off is continued from the server's offset, only the rest is sent, an upload
/// the server no longer knows starts over, and a lost last answer is read from the upload.
@Suite("Swift SDK: resumable uploads", .timeLimit(.minutes(2)))
struct SDKResumableUploadTests {
    static let deck = TestServer.demoDeck
    static let chunk = 16 * 1024

    /// The test server behind a proxy, and the SDK signed in through the proxy, with waits that
    /// only record how long they would have been.
    static func withProxy(
        store: StoreKind = .sqlite, _ body: @escaping @Sendable (Client, CuttingProxy, PodiumClient, Waits) async throws -> Void
    ) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let proxy = try await CuttingProxy.start(target: client.port)
            let waits = Waits()
            let podium = PodiumClient(baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!)
            // A wait takes no time, but lasts until the server has noted the bytes of a cut PATCH
            // (as a real second would): the test then knows where the client must go on from.
            podium.uploadPolicy = UploadPolicy(
                chunkBytes: chunk,
                sleep: { delay in
                    waits.list.withLock { $0.append(delay) }
                    guard let cut = proxy.lastCutEnd, let location = proxy.lastPatchPath else { return }
                    try await waitUntil("the server noted the cut PATCH's \(cut) bytes") {
                        let head = try await client.request(
                            .head, location, token: podium.token,
                            headers: [HTTPField.Name("Tus-Resumable")!: "1.0.0"])
                        return head.headers[HTTPField.Name("Upload-Offset")!] == "\(cut)"
                    }
                })
            do {
                try await podium.signIn(email: "admin", password: TestServer.adminPassword)
                try await body(client, proxy, podium, waits)
            } catch {
                await proxy.close()
                throw error
            }
            await proxy.close()
        }
    }

    final class Waits: Sendable {
        let list = Mutex<[Duration]>([])
        var all: [Duration] { list.withLock { $0 } }
    }

    final class Reports: Sendable {
        let list = Mutex<[TransferProgress]>([])
        var all: [TransferProgress] { list.withLock { $0 } }
        var handler: ProgressHandler { { report in self.list.withLock { $0.append(report) } } }
    }

    /// A deck upload of `file` made by hand with `bytes` of it sent: its id and address.
    static func halfFilled(_ client: Client, token: String, file: URL, title: String, bytes: Int) async throws -> String {
        let data = try Data(contentsOf: file)
        let metadata = UploadDestination.deck(title: title, folderId: nil).uploadMetadata(filename: file.lastPathComponent)
        let created = try await client.request(
            .post, "/api/v1/uploads", token: token,
            headers: [
                HTTPField.Name("Tus-Resumable")!: "1.0.0", HTTPField.Name("Upload-Length")!: "\(data.count)",
                HTTPField.Name("Upload-Metadata")!: metadata,
            ])
        #expect(created.status == .created, "\(String(buffer: created.body))")
        let location = try #require(created.headers[.location])
        let patched = try await client.request(
            .patch, location, token: token,
            headers: [
                HTTPField.Name("Tus-Resumable")!: "1.0.0", HTTPField.Name("Upload-Offset")!: "0",
                .contentType: "application/offset+octet-stream",
            ],
            body: ByteBuffer(bytes: data.prefix(bytes)))
        #expect(patched.status == .noContent, "\(String(buffer: patched.body))")
        #expect(patched.headers[HTTPField.Name("Upload-Offset")!] == "\(bytes)")
        return location
    }

    @Test(arguments: TestStores.kinds) func anUploadLeftHalfDoneIsContinuedFromTheServersOffset(_ store: StoreKind)
        async throws
    {
        try await Self.withProxy(store: store) { client, proxy, podium, waits in
            let token = try #require(podium.token)
            let size = try Data(contentsOf: Self.deck).count
            let half = size / 2
            let location = try await Self.halfFilled(client, token: token, file: Self.deck, title: "Resumed", bytes: half)
            // An earlier run remembered it.
            let store = MemoryUploadResumeStore()
            let fingerprint = try podium.uploadFingerprint(file: Self.deck, destination: .deck(title: "Resumed", folderId: nil))
            await store.remember(URL(string: "http://127.0.0.1:\(proxy.port)\(location)")!, for: fingerprint)

            let reports = Reports()
            let uploaded = try await podium.uploadDeck(
                file: Self.deck, title: "Resumed", progress: reports.handler, resume: store)
            #expect(uploaded.item.title == "Resumed")
            // Only the rest was sent, from the server's offset, in chunks.
            let expected = Array(stride(from: Int64(half), to: Int64(size), by: Self.chunk))
            #expect(proxy.patchOffsets == expected)
            let progress = reports.all
            #expect(progress.first == TransferProgress(bytes: Int64(half), total: Int64(size)), "resumed at the server's offset")
            #expect(progress.allSatisfy { $0.bytes >= Int64(half) && $0.total == Int64(size) })
            #expect(progress.last?.bytes == Int64(size))
            #expect(waits.all.isEmpty)
            // Done: forgotten by the store, and the server keeps the result with the upload.
            #expect(store.all.isEmpty)
            let done = try await podium.resumableUpload(id: String(location.split(separator: "/").last!))
            #expect(done.state == .done)
            #expect(done.offset == size)
            guard case .deck(let result)? = done.result else {
                Issue.record("no deck result: \(String(describing: done.result))")
                return
            }
            #expect(result.item.id == uploaded.item.id)
            #expect(try await podium.waitUntilReady(deck: uploaded.item.id).title == "Resumed")
        }
    }

    @Test(arguments: TestStores.kinds) func aConnectionCutMidPatchIsRetriedFromWhatTheServerKept(_ store: StoreKind)
        async throws
    {
        try await Self.withProxy(store: store) { client, proxy, podium, waits in
            let size = try Data(contentsOf: Self.deck).count
            proxy.cutNextPatch(.body(afterBytes: 5000))
            let store = MemoryUploadResumeStore()
            let reports = Reports()
            let uploaded = try await podium.uploadDeck(file: Self.deck, progress: reports.handler, resume: store)
            // One wait of a second, then HEAD said 5000 bytes were kept: the rest went from there.
            #expect(waits.all == [.seconds(1)])
            let expected = [0] + Array(stride(from: Int64(5000), to: Int64(size), by: Self.chunk))
            #expect(proxy.patchOffsets == expected)
            #expect(reports.all.last?.bytes == Int64(size))
            #expect(store.all.isEmpty)
            let deck = try await podium.waitUntilReady(deck: uploaded.item.id)
            #expect(deck.title == "podium-demo")
            // The bytes are the file's, in order (the PDF the server keeps is the one sent).
            let pdf = FileManager.default.temporaryDirectory.appendingPathComponent("resumed-\(UUID().uuidString).pdf")
            defer { try? FileManager.default.removeItem(at: pdf) }
            try await podium.downloadDeckPDF(id: deck.id, to: pdf)
            #expect(try Data(contentsOf: pdf) == Data(contentsOf: Self.deck))
        }
    }

    @Test func anUploadTheServerNoLongerKnowsStartsOver() async throws {
        try await Self.withProxy { client, proxy, podium, waits in
            let size = try Data(contentsOf: Self.deck).count
            let store = MemoryUploadResumeStore()
            let fingerprint = try podium.uploadFingerprint(
                file: Self.deck, destination: .deck(title: "podium-demo", folderId: nil))
            let gone = URL(string: "http://127.0.0.1:\(proxy.port)/api/v1/uploads/u0123456789abcdef0123456789abcdef")!
            await store.remember(gone, for: fingerprint)
            let reports = Reports()
            let uploaded = try await podium.uploadDeck(file: Self.deck, progress: reports.handler, resume: store)
            #expect(uploaded.item.title == "podium-demo")
            #expect(proxy.patchOffsets == Array(stride(from: Int64(0), to: Int64(size), by: Self.chunk)))
            #expect(reports.all.first.map { $0.bytes <= Int64(Self.chunk) } == true)
            #expect(store.all.isEmpty)
            #expect(waits.all.isEmpty)
        }
    }

    @Test func aLostLastAnswerIsReadFromTheUpload() async throws {
        try await Self.withProxy { client, proxy, podium, waits in
            podium.uploadPolicy.chunkBytes = UploadPolicy.maximumChunkBytes
            proxy.cutNextPatch(.answer)
            let uploaded = try await podium.uploadDeck(file: Self.deck, title: "Answer lost")
            // The whole file went in one PATCH; its answer was lost; HEAD said all was there and
            // GET gave the result: nothing was sent twice.
            #expect(proxy.patchOffsets == [0])
            #expect(waits.all == [.seconds(1)])
            #expect(uploaded.item.title == "Answer lost")
            #expect(try await podium.decks().map(\.id) == [uploaded.item.id])
        }
    }

    @Test func aRefusedFileIsTheOneShotRoutesRefusalAndIsForgotten() async throws {
        try await Self.withProxy { client, proxy, podium, waits in
            let directory = try SDKResumableUploadOfflineTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let text = directory.appendingPathComponent("notes.txt")
            try Data(repeating: 65, count: 40_000).write(to: text)
            let store = MemoryUploadResumeStore()
            do {
                _ = try await podium.uploadDeck(file: text, resume: store)
                Issue.record("a text file became a deck")
            } catch let error as PodiumError {
                #expect(error.status == 415, "\(error)")
                #expect(error.code == "unsupported_type", "\(error)")
            }
            #expect(store.all.isEmpty, "a refused upload is forgotten")
            #expect(proxy.patchOffsets == [0, 16384, 32768])
            #expect(try await podium.decks().isEmpty)
        }
    }

    @Test func roomUploadsAndInMemoryDecksGoTheResumableWayToo() async throws {
        try await Self.withProxy { client, proxy, podium, waits in
            let scratch = try VideoClipMaker.scratch()
            defer { try? FileManager.default.removeItem(at: scratch) }
            let sound = try await VideoClipMaker.m4a(seconds: 1, in: scratch)
            let room = try await podium.openRoom(title: "Seminar")
            let deck = try await podium.uploadDeckToRoom(code: room.code, file: Self.deck)
            #expect(deck.status == "processing")
            #expect(deck.jobId != nil)
            let clip = try await podium.uploadRoomVideo(code: room.code, file: sound, title: "Jingle")
            #expect(clip.item.title == "Jingle")
            #expect(try await podium.roomVideos(code: room.code).map(\.id) == [clip.item.id])
            let memory = try await podium.uploadDeck(pdf: Data(contentsOf: Self.deck), title: "From memory")
            #expect(memory.item.title == "From memory")
            let size = Int64(try Data(contentsOf: Self.deck).count)
            let deckOffsets = Array(stride(from: Int64(0), to: size, by: Self.chunk))
            #expect(proxy.patchOffsets == deckOffsets + [0] + deckOffsets, "every upload went in PATCHes")
            #expect(waits.all.isEmpty)
        }
    }

    @Test func aServerThatStaysUnreachableFailsAfterTheBackOffAndIsRemembered() async throws {
        try await Self.withProxy { client, proxy, podium, waits in
            let store = MemoryUploadResumeStore()
            // Every try is cut: the first PATCH and every one after a wait.
            for _ in 0..<20 { proxy.cutNextPatch(.body(afterBytes: 1000)) }
            podium.uploadPolicy.retryDelays = [.seconds(1), .seconds(2), .seconds(4)]
            do {
                _ = try await podium.uploadDeck(file: Self.deck, resume: store)
                Issue.record("an upload cut every time finished")
            } catch let error as PodiumTransportError {
                #expect(error.kind == .unreachable)
                #expect(error.detail.hasPrefix("network:"), "\(error.detail)")
            }
            #expect(waits.all == [.seconds(1), .seconds(2), .seconds(4)])
            // Each try went on from what the server had kept.
            #expect(proxy.patchOffsets == [0, 1000, 2000, 3000])
            // Kept for a later run to continue.
            #expect(store.all.count == 1)
        }
    }
}

/// The CLI's uploads resume: a second run of the same command for the same file continues the
/// upload a killed run (or a dropped connection) left, from where the server has it, and says so.
@Suite("CLI: resumable uploads", .timeLimit(.minutes(2)))
struct CLIResumableUploadTests {
    static let hold = 20_000

    @Test func aSecondDecksImportContinuesTheUploadAnEarlierRunLeft() async throws {
        guard FileManager.default.isExecutableFile(atPath: CLIRemoteTests.binary.path) else {
            Issue.record("build the podium binary first (swift build): \(CLIRemoteTests.binary.path)")
            return
        }
        let state = try SDKResumableUploadOfflineTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let url = "http://127.0.0.1:\(client.port)"
            let token = try await client.login()
            let file = TestServer.demoDeck
            let size = try Data(contentsOf: file).count
            let half = size / 2
            // The earlier run: half the file sent, the upload remembered in the state file.
            let location = try await SDKResumableUploadTests.halfFilled(
                client, token: token, file: file, title: "podium-demo", bytes: half)
            let fingerprint = try PodiumClient(baseURL: URL(string: url)!).uploadFingerprint(
                file: file, destination: .deck(title: "podium-demo", folderId: nil))
            let stateFile = state.appendingPathComponent("podium/uploads.json")
            await FileUploadResumeStore(file: stateFile).remember(URL(string: url + location)!, for: fingerprint)

            let run = try await CLIRemoteTests.podium(
                ["decks", "import", file.path, "--no-wait", "--json"],
                environment: ["PODIUM_URL": url, "PODIUM_TOKEN": token, "XDG_STATE_HOME": state.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("Resuming podium-demo.pdf at \(half * 100 / size) %"), "\(run.stderr)")
            let deck = try #require(try run.objects().first)
            #expect(deck["title"] as? String == "podium-demo")
            // The upload the first run began became the deck, and the state file forgot it.
            let upload = try await client.request(.get, location, token: token).object()
            #expect(upload["state"] as? String == "done")
            #expect((upload["result"] as? [String: Any])?["id"] as? String == deck["id"] as? String)
            #expect(FileUploadResumeStore(file: stateFile).all.isEmpty)
            #expect(try await client.request(.get, "/api/v1/decks", token: token).array().count == 1)
        }
    }

    @Test func aVideosImportKilledMidUploadIsContinuedByTheNextRun() async throws {
        guard FileManager.default.isExecutableFile(atPath: CLIRemoteTests.binary.path) else {
            Issue.record("build the podium binary first (swift build): \(CLIRemoteTests.binary.path)")
            return
        }
        let scratch = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let clip = try await VideoClipMaker.mp4(seconds: 2, in: scratch)
        let size = try Data(contentsOf: clip).count
        try #require(size > Self.hold * 2, "the clip is \(size) bytes")
        let state = scratch.appendingPathComponent("state")
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let proxy = try await CuttingProxy.start(target: client.port)
            do {
                let environment = [
                    "PODIUM_URL": "http://127.0.0.1:\(proxy.port)", "PODIUM_TOKEN": token, "XDG_STATE_HOME": state.path,
                ]
                // The first run stalls mid-PATCH (the server has `hold` bytes of it) and is killed.
                proxy.cutNextPatch(.hold(afterBytes: Self.hold))
                let first = ChildProcess(
                    CLIRemoteTests.binary, arguments: ["videos", "import", clip.path, "--no-wait"],
                    environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }, directory: scratch)
                try first.run()
                try await waitUntil("the first run's PATCH is held") { proxy.held == 1 }
                first.send(SIGKILL)
                #expect(await first.exited().isSignal)
                let path = try #require(proxy.lastPatchPath)
                try await waitUntil("the server kept the bytes of the killed run") {
                    let head = try await client.request(
                        .head, path, token: token, headers: [HTTPField.Name("Tus-Resumable")!: "1.0.0"])
                    return head.headers[HTTPField.Name("Upload-Offset")!] == "\(Self.hold)"
                }
                #expect(FileUploadResumeStore(file: state.appendingPathComponent("podium/uploads.json")).all.count == 1)

                // The second run of the same command goes on from there.
                let second = try await CLIRemoteTests.podium(
                    ["videos", "import", clip.path, "--no-wait", "--json"], environment: environment)
                #expect(second.status == 0, "\(second.stderr)")
                #expect(second.stderr.contains("Resuming clip.mp4 at \(Self.hold * 100 / size) %"), "\(second.stderr)")
                #expect(proxy.patchOffsets == [0, Int64(Self.hold)])
                let video = try #require(try second.objects().first)
                #expect(video["title"] as? String == "clip")
                #expect(FileUploadResumeStore(file: state.appendingPathComponent("podium/uploads.json")).all.isEmpty)
                let listed = try await CLIRemoteTests.podium(["videos", "list", "--json"], environment: environment)
                #expect(try listed.objects().map { $0["id"] as? String } == [video["id"] as? String])
            } catch {
                await proxy.close()
                throw error
            }
            await proxy.close()
        }
    }
}
