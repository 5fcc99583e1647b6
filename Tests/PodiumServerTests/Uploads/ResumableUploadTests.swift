import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import PodiumStore
import Testing

@testable import PodiumServer

/// Resumable uploads (tus 1.0.0, `/api/v1/uploads`): a deck and a clip sent in pieces become
/// what the one-shot routes make of them; a piece cut off half way keeps what arrived; the
/// limits, refusals and expiry hold.
@Suite("Resumable uploads", .timeLimit(.minutes(2)))
struct ResumableUploadTests {
    static let tus: HTTPFields = [HTTPField.Name("Tus-Resumable")!: "1.0.0"]
    static let offsetName = HTTPField.Name("Upload-Offset")!

    static func metadata(_ pairs: [String: String]) -> String {
        pairs.sorted { $0.key < $1.key }.map { "\($0.key) \(Data($0.value.utf8).base64EncodedString())" }
            .joined(separator: ",")
    }

    /// Creates an upload; its path (`Location`).
    static func create(
        _ client: Client, token: String?, length: Int, metadata: [String: String], expect status: HTTPResponse.Status = .created
    ) async throws -> TestResponse {
        var headers = tus
        headers[HTTPField.Name("Upload-Length")!] = String(length)
        headers[HTTPField.Name("Upload-Metadata")!] = Self.metadata(metadata)
        let response = try await client.request(.post, "/api/v1/uploads", token: token, headers: headers)
        #expect(response.status == status, "\(String(buffer: response.body))")
        #expect(response.headers[HTTPField.Name("Tus-Resumable")!] == "1.0.0")
        return response
    }

    static func patch(_ client: Client, _ path: String, token: String?, offset: Int, _ bytes: Data) async throws
        -> TestResponse
    {
        var headers = tus
        headers[.contentType] = "application/offset+octet-stream"
        headers[offsetName] = String(offset)
        return try await client.request(.patch, path, token: token, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    static func offset(_ client: Client, _ path: String, token: String?) async throws -> Int? {
        let head = try await client.request(.head, path, token: token, headers: tus)
        return head.status == .ok ? head.headers[offsetName].flatMap(Int.init) : nil
    }

    /// Sends `file` in pieces of `piece` bytes; the last answer.
    static func send(_ client: Client, _ path: String, token: String?, _ data: Data, piece: Int, from start: Int = 0)
        async throws -> TestResponse
    {
        var offset = start
        while true {
            let end = min(offset + piece, data.count)
            let answer = try await patch(client, path, token: token, offset: offset, data.subdata(in: offset..<end))
            guard answer.status == .noContent else { return answer }
            #expect(answer.headers[offsetName] == String(end))
            #expect(answer.headers[HTTPField.Name("Upload-Expires")!] != nil)
            offset = end
        }
    }

    func partFiles(_ server: TestServer) -> [String] {
        let directory = server.configuration.blobDirectory.appendingPathComponent("uploads")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test(arguments: TestStores.kinds) func aDeckSentInPiecesIsTheDeckTheOneShotRouteMakes(_ kind: StoreKind) async throws {
        let server = TestServer(store: kind)
        defer { server.removeData() }
        let pdf = try Data(contentsOf: TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"))
        try await server.run { client in
            let token = try await client.login()
            let options = try await client.request(.options, "/api/v1/uploads")
            #expect(options.status == .noContent)
            #expect(options.headers[HTTPField.Name("Tus-Version")!] == "1.0.0")
            #expect(options.headers[HTTPField.Name("Tus-Extension")!] == "creation,expiration,termination")
            #expect(options.headers[HTTPField.Name("Tus-Max-Size")!] == String(server.configuration.maxVideoUploadBytes))

            let created = try await Self.create(
                client, token: token, length: pdf.count, metadata: ["target": "deck", "filename": "Cairo talk.pdf"])
            let path = try #require(created.headers[.location])
            #expect(path.hasPrefix("/api/v1/uploads/u") && path.count == "/api/v1/uploads/".count + 33)
            #expect(created.headers[Self.offsetName] == "0")
            #expect(created.headers[HTTPField.Name("Upload-Expires")!]?.hasSuffix(" GMT") == true)
            let body = try created.object()
            #expect(body["target"] as? String == "deck")
            #expect(body["offset"] as? Int == 0)
            #expect(body["length"] as? Int == pdf.count)
            #expect(body["filename"] as? String == "Cairo talk.pdf")
            #expect(body["state"] as? String == "receiving")
            #expect(body["result"] is NSNull)

            let third = pdf.count / 3
            #expect(try await Self.patch(client, path, token: token, offset: 0, pdf.prefix(third)).status == .noContent)
            #expect(try await Self.offset(client, path, token: token) == third)
            // The wrong offset: 409 with the stored one, nothing written.
            let wrong = try await Self.patch(client, path, token: token, offset: 0, pdf.prefix(third))
            #expect(wrong.status == .conflict)
            #expect(try wrong.object()["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "offset_mismatch")
            #expect(wrong.headers[Self.offsetName] == String(third))
            // Not the tus content type.
            var plain = Self.tus
            plain[.contentType] = "application/pdf"
            plain[Self.offsetName] = String(third)
            let untyped = try await client.request(.patch, path, token: token, headers: plain, body: ByteBuffer(bytes: pdf))
            #expect(untyped.status == .unsupportedMediaType)
            // Past the length: refused whole, nothing kept.
            let tooLong = try await Self.patch(client, path, token: token, offset: third, pdf.suffix(from: third) + Data([1]))
            #expect(tooLong.status == .badRequest)
            #expect(String(buffer: tooLong.body).contains("too_long"))
            #expect(try await Self.offset(client, path, token: token) == third)

            let last = try await Self.send(client, path, token: token, pdf, piece: third, from: third)
            #expect(last.status == .ok, "\(String(buffer: last.body))")
            #expect(last.headers[Self.offsetName] == String(pdf.count))
            let deck = try last.object()
            let deckId = try #require(deck["id"] as? String)
            #expect(deck["title"] as? String == "Cairo talk")
            #expect(deck["jobId"] is String)
            #expect(try await client.waitForDeck(deckId, token: token)["status"] as? String == "ready")
            // The answer stays with the upload; its bytes are gone.
            let done = try await client.request(.get, path, token: token).object()
            #expect(done["state"] as? String == "done")
            #expect((done["result"] as? [String: Any])?["id"] as? String == deckId)
            #expect(partFiles(server).isEmpty)
        }
    }

    @Test func aClipSentInPiecesIsPackaged() async throws {
        let server = VideoLibraryTests.server()
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try Data(contentsOf: try await VideoClipMaker.mp4(seconds: 2, in: work))
        try await server.run { client in
            let token = try await client.login()
            let created = try await Self.create(
                client, token: token, length: clip.count, metadata: ["target": "video", "filename": "talk.mp4"])
            let path = try #require(created.headers[.location])
            let last = try await Self.send(client, path, token: token, clip, piece: clip.count / 4 + 1)
            #expect(last.status == .ok, "\(String(buffer: last.body))")
            let video = try last.object()
            #expect(video["title"] as? String == "talk")
            let id = try #require(video["id"] as? String)
            #expect(try await client.waitForVideo(id, token: token)["status"] as? String == "ready")
        }
    }

    @Test func aPieceCutOffHalfWayKeepsWhatArrived() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let pdf = try Data(contentsOf: TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"))
        let half = pdf.count / 2
        try await server.run { client in
            let token = try await client.login()
            let created = try await Self.create(client, token: token, length: pdf.count, metadata: ["target": "deck"])
            let path = try #require(created.headers[.location])
            let part = server.configuration.blobDirectory.appendingPathComponent("uploads")
                .appendingPathComponent("\((path as NSString).lastPathComponent).part")

            // The whole file announced, half of it sent, then the connection drops.
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: client.port).get()
            let head =
                "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nTus-Resumable: 1.0.0\r\n"
                + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(pdf.count)\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(bytes: Array(head.utf8) + pdf.prefix(half)))
            try await waitUntil("half the file is on disk") {
                ((try? FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int) ?? 0) == half
            }
            try await channel.close()
            var kept: Int?
            try await waitUntil("the bytes received are committed") {
                kept = try await Self.offset(client, path, token: token)
                return kept == half
            }

            // The upload goes on from there and makes the deck.
            let last = try await Self.send(client, path, token: token, pdf, piece: pdf.count, from: half)
            #expect(last.status == .ok, "\(String(buffer: last.body))")
            let deckId = try #require(try last.object()["id"] as? String)
            #expect(try await client.waitForDeck(deckId, token: token)["status"] as? String == "ready")
        }
    }

    @Test func aPieceWhoseConnectionWentSilentIsTakenOverByTheNextOne() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let pdf = try Data(contentsOf: TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"))
        let half = pdf.count / 2
        try await server.run { client in
            let token = try await client.login()
            let created = try await Self.create(client, token: token, length: pdf.count, metadata: ["target": "deck"])
            let path = try #require(created.headers[.location])
            let part = server.configuration.blobDirectory.appendingPathComponent("uploads")
                .appendingPathComponent("\((path as NSString).lastPathComponent).part")

            // Half the file sent, then nothing more, and the connection stays open: the server
            // cannot tell it from a slow one (Wi-Fi gone without a word).
            let silent = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: client.port).get()
            let head =
                "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nTus-Resumable: 1.0.0\r\n"
                + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: \(pdf.count)\r\n\r\n"
            try await silent.writeAndFlush(ByteBuffer(bytes: Array(head.utf8) + pdf.prefix(half)))
            try await waitUntil("half the file is on disk") {
                ((try? FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int) ?? 0) == half
            }
            // The client resumes from the offset it last knew; the silent request is stopped,
            // keeps its half, and the answer says where to go on.
            let resumed = try await Self.patch(client, path, token: token, offset: 0, pdf)
            #expect(resumed.status == .conflict, "\(String(buffer: resumed.body))")
            #expect(resumed.headers[Self.offsetName] == String(half))
            let last = try await Self.send(client, path, token: token, pdf, piece: pdf.count, from: half)
            #expect(last.status == .ok, "\(String(buffer: last.body))")
            try? await silent.close()
        }
    }

    /// Two nodes sharing the database and the part files: a client retrying through a load
    /// balancer sends the piece to node B while node A still takes it on a connection gone
    /// silent. B does not write beside A: A is asked to let go (the writer's lease), keeps the
    /// bytes it received, and B answers where to go on; the upload then finishes through B.
    @Test(arguments: TestStores.kinds) func aPieceOnAnotherNodeWaitsForTheWriterThere(_ kind: StoreKind) async throws {
        let first = TestServer { $0.uploadLeaseRenewal = .milliseconds(50) }
        let blobs = first.configuration.blobDirectory
        let second = TestServer {
            $0.blobDirectory = blobs
            $0.uploadLeaseRenewal = .milliseconds(50)
        }
        defer {
            first.removeData()
            second.removeData()
        }
        let pdf = try Data(contentsOf: TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"))
        let half = pdf.count / 2
        let (store, storeOfB, closeStores) = try await TestStores.openNodes(kind)
        do {
            try await first.run(store: store) { nodeA in
                try await second.run(store: storeOfB) { nodeB in
                    let token = try await nodeA.login()
                    let created = try await Self.create(nodeA, token: token, length: pdf.count, metadata: ["target": "deck"])
                    let path = try #require(created.headers[.location])
                    let part = blobs.appendingPathComponent("uploads")
                        .appendingPathComponent("\((path as NSString).lastPathComponent).part")
                    let silent = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .connect(host: "127.0.0.1", port: nodeA.port).get()
                    let head =
                        "PATCH \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                        + "Tus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\n"
                        + "Content-Length: \(pdf.count)\r\n\r\n"
                    try await silent.writeAndFlush(ByteBuffer(bytes: Array(head.utf8) + pdf.prefix(half)))
                    try await waitUntil("half the file is on disk") {
                        ((try? FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int) ?? 0) == half
                    }
                    // Node B: the whole piece again from 0. A's half is kept, B wrote nothing.
                    let resumed = try await Self.patch(nodeB, path, token: token, offset: 0, pdf)
                    #expect(resumed.status == .conflict, "\(String(buffer: resumed.body))")
                    #expect(resumed.headers[Self.offsetName] == String(half))
                    #expect(try await Self.offset(nodeB, path, token: token) == half)
                    let last = try await Self.send(nodeB, path, token: token, pdf, piece: pdf.count, from: half)
                    #expect(last.status == .ok, "\(String(buffer: last.body))")
                    let deckId = try #require(try last.object()["id"] as? String)
                    #expect(try await nodeA.waitForDeck(deckId, token: token)["status"] as? String == "ready")
                    try? await silent.close()
                }
            }
        } catch {
            await closeStores()
            throw error
        }
        await closeStores()
    }

    /// A node that died while writing an upload holds its lease, and nobody writes the part file
    /// beside it: a PATCH waits (asking for the lease), and takes over once the lease's term is past.
    @Test(arguments: TestStores.kinds) func aLeaseWhoseNodeDiedIsTakenOverOnceItsTermIsPast(_ kind: StoreKind) async throws {
        let clock = SteppedClock()
        let server = TestServer { $0.uploadLeaseTerm = 20 }
        defer { server.removeData() }
        let (store, cleanUp) = try await TestStores.open(kind)
        do {
            try await server.run(store: store, now: { clock.now }) { client in
                let token = try await client.login()
                let created = try await Self.create(client, token: token, length: 100, metadata: ["target": "deck"])
                let path = try #require(created.headers[.location])
                let id = (path as NSString).lastPathComponent
                #expect(try await store.takeUploadLease(id: id, holder: "dead", until: clock.now + 20, now: clock.now))
                let patching = Task { try await Self.patch(client, path, token: token, offset: 0, Data(count: 40)) }
                try await waitUntil("the PATCH asks for the lease") {
                    try await store.renewUploadLease(id: id, holder: "dead", until: clock.now + 20) == .wanted
                }
                #expect(partFiles(server) == ["\(id).part"])
                let part = server.configuration.blobDirectory.appendingPathComponent("uploads/\(id).part")
                #expect((try FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int) == 0)
                clock.advance(21)
                let answer = try await patching.value
                #expect(answer.status == .noContent, "\(String(buffer: answer.body))")
                #expect(try await Self.offset(client, path, token: token) == 40)
            }
        } catch {
            try? await store.close()
            await cleanUp()
            throw error
        }
        try? await store.close()
        await cleanUp()
    }

    /// A tus client reads `Tus-Resumable` on every answer: refusals given before the upload
    /// routes (the CSRF check, an unknown route, a method the routes lack: 404) carry it too; the
    /// other routes do not.
    @Test func everyAnswerUnderUploadsCarriesTheProtocolVersion() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let tusName = HTTPField.Name("Tus-Resumable")!
        try await server.run { client in
            let token = try await client.login()
            let created = try await Self.create(client, token: token, length: 100, metadata: ["target": "deck"])
            let path = try #require(created.headers[.location])
            var answers: [(String, TestResponse, HTTPResponse.Status)] = []
            // Signed in by cookie, without X-Podium-Request: the auth middleware's 403 csrf.
            var cookie = Self.tus
            cookie[.cookie] = "\(AuthMiddleware.cookieName)=\(token)"
            cookie[.contentType] = "application/offset+octet-stream"
            cookie[Self.offsetName] = "0"
            answers.append(
                ("csrf", try await client.request(.patch, path, headers: cookie, body: ByteBuffer(bytes: [1])), .forbidden))
            answers.append(("bad token", try await Self.patch(client, path, token: "nonsense", offset: 0, Data([1])), .notFound))
            answers.append(
                (
                    "bad token, creation",
                    try await Self.create(
                        client, token: "nonsense", length: 10, metadata: ["target": "deck"], expect: .unauthorized),
                    .unauthorized
                ))
            answers.append(("unknown route", try await client.request(.get, "\(path)/parts", token: token), .notFound))
            answers.append(("unknown route, HEAD", try await client.request(.head, "\(path)/parts", token: token), .notFound))
            answers.append(("no such method", try await client.request(.put, path, token: token), .notFound))
            for (name, answer, status) in answers {
                #expect(answer.status == status, "\(name): \(String(buffer: answer.body))")
                #expect(answer.headers[tusName] == "1.0.0", "\(name)")
            }
            #expect(answers[4].1.body.readableBytes == 0)
            #expect(String(buffer: answers[0].1.body).contains("csrf"))
            // Elsewhere, no tus header.
            let decks = try await client.request(.get, "/api/v1/decks", token: token)
            #expect(decks.status == .ok)
            #expect(decks.headers[tusName] == nil)
            #expect(try await client.request(.get, "/api/v1/uploadsX", token: token).headers[tusName] == nil)
        }
    }

    /// A PATCH carries at most 8 MiB (what the clients send, what a proxy's limit needs): 8 MiB
    /// is taken, one byte more is 413 `piece_too_large`; the upload's remainder is taken, one
    /// byte more is 400 `too_long`; a refused piece keeps nothing.
    @Test func aPieceIsAtMost8MiBAndAtMostWhatTheUploadLacks() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let piece = 8 << 20
        let length = piece + 1000
        try await server.run { client in
            let token = try await client.login()
            let created = try await Self.create(client, token: token, length: length, metadata: ["target": "deck"])
            let path = try #require(created.headers[.location])
            let over = try await Self.patch(client, path, token: token, offset: 0, Data(count: piece + 1))
            #expect(over.status == .contentTooLarge)
            #expect(String(buffer: over.body).contains("piece_too_large"))
            #expect(over.headers[HTTPField.Name("Tus-Resumable")!] == "1.0.0")
            #expect(try await Self.offset(client, path, token: token) == 0)
            let whole = try await Self.patch(client, path, token: token, offset: 0, Data(count: piece))
            #expect(whole.status == .noContent, "\(String(buffer: whole.body))")
            #expect(try await Self.offset(client, path, token: token) == piece)

            let tooLong = try await Self.patch(client, path, token: token, offset: piece, Data(count: 1001))
            #expect(tooLong.status == .badRequest)
            #expect(String(buffer: tooLong.body).contains("too_long"))
            #expect(try await Self.offset(client, path, token: token) == piece)
            // The remainder exactly is taken, and the file judged: zeros are no deck.
            let last = try await Self.patch(client, path, token: token, offset: piece, Data(count: 1000))
            #expect(last.status == .unsupportedMediaType, "\(String(buffer: last.body))")
            #expect(!String(buffer: last.body).contains("too_long"))
        }
    }

    @Test func creationIsRefusedAsTheOneShotRoutesRefuse() async throws {
        let server = TestServer { $0.maxUploadBytes = 1000 }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let tooLarge = try await Self.create(
                client, token: token, length: 1001, metadata: ["target": "deck"], expect: .contentTooLarge)
            #expect(String(buffer: tooLarge.body).contains("too_large"))
            let unknown = try await Self.create(
                client, token: token, length: 10, metadata: ["target": "poster"], expect: .badRequest)
            #expect(String(buffer: unknown.body).contains("invalid_target"))
            _ = try await Self.create(client, token: nil, length: 10, metadata: ["target": "video"], expect: .unauthorized)
            let folder = try await Self.create(
                client, token: token, length: 10, metadata: ["target": "video", "folderId": "f_nobody"], expect: .notFound)
            #expect(String(buffer: folder.body).contains("not_found"))
            // Without the protocol's version: 412 and the version the server speaks.
            var headers: HTTPFields = [HTTPField.Name("Upload-Length")!: "10"]
            headers[HTTPField.Name("Upload-Metadata")!] = Self.metadata(["target": "deck"])
            let unversioned = try await client.request(.post, "/api/v1/uploads", token: token, headers: headers)
            #expect(unversioned.status == .preconditionFailed)
            #expect(unversioned.headers[HTTPField.Name("Tus-Version")!] == "1.0.0")
            var noLength = Self.tus
            noLength[HTTPField.Name("Upload-Metadata")!] = Self.metadata(["target": "deck"])
            #expect(try await client.request(.post, "/api/v1/uploads", token: token, headers: noLength).status == .badRequest)
            // A room: only its moderator or presenters bring files into it.
            let code = try await RoomTests.openRoom(client, token: token)
            let made = try await client.request(
                .post, "/api/v1/users", token: token,
                json: #"{"email":"eva@example.org","name":"Eva","password":"correct horse 42"}"#)
            #expect(made.status == .created)
            let eva = try await client.login(email: "eva@example.org", password: "correct horse 42")
            _ = try await Self.create(
                client, token: eva, length: 10, metadata: ["target": "room-deck", "session": code], expect: .forbidden)
            _ = try await Self.create(
                client, token: token, length: 10, metadata: ["target": "room-deck", "session": "999999"], expect: .notFound)
            #expect(partFiles(server).isEmpty)
        }
    }

    @Test func aFileThatIsNoClipIsRefusedAtTheEndAndTheUploadRemoved() async throws {
        let server = TestServer()
        defer { server.removeData() }
        // A PDF: ffprobe reads it, and it has no picture or sound.
        let junk = try Data(contentsOf: TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"))
        try await server.run { client in
            let token = try await client.login()
            let created = try await Self.create(client, token: token, length: junk.count, metadata: ["target": "video"])
            let path = try #require(created.headers[.location])
            let last = try await Self.send(client, path, token: token, junk, piece: junk.count / 2 + 1)
            #expect(last.status == .unsupportedMediaType)
            #expect(String(buffer: last.body).contains("not_video"))
            #expect(last.headers[HTTPField.Name("Tus-Resumable")!] == "1.0.0")
            let head = try await client.request(.head, path, token: token)
            #expect(head.status == .notFound)
            #expect(head.body.readableBytes == 0)
            #expect(partFiles(server).isEmpty)
            #expect(try await client.request(.get, "/api/v1/videos", token: token).array().isEmpty)
        }
    }

    @Test func anUploadIsItsOwnersAndDeletedWithItsBytes() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let created = try await Self.create(client, token: token, length: 100, metadata: ["target": "deck"])
            let path = try #require(created.headers[.location])
            #expect(try await Self.patch(client, path, token: token, offset: 0, Data(count: 40)).status == .noContent)
            _ = try await client.request(
                .post, "/api/v1/users", token: token,
                json: #"{"email":"eva@example.org","name":"Eva","password":"correct horse 42"}"#)
            let eva = try await client.login(email: "eva@example.org", password: "correct horse 42")
            #expect(try await client.request(.head, path, token: eva).status == .notFound)
            #expect(try await client.request(.get, path, token: eva).status == .notFound)
            #expect(try await Self.patch(client, path, token: eva, offset: 40, Data(count: 10)).status == .notFound)
            #expect(try await client.request(.delete, path, token: eva).status == .notFound)
            #expect(try await Self.offset(client, path, token: token) == 40)

            #expect(partFiles(server).count == 1)
            #expect(try await client.request(.delete, path, token: token, headers: Self.tus).status == .noContent)
            #expect(partFiles(server).isEmpty)
            #expect(try await client.request(.head, path, token: token).status == .notFound)
        }
    }

    @Test func anExpiredUploadIsSwept() async throws {
        let clock = SteppedClock()
        let server = TestServer {
            $0.uploadExpiry = 3600
            $0.uploadSweepInterval = .milliseconds(20)
        }
        defer { server.removeData() }
        try await server.run(now: { clock.now }) { client in
            let token = try await client.login()
            let created = try await Self.create(client, token: token, length: 100, metadata: ["target": "deck"])
            let path = try #require(created.headers[.location])
            #expect(try await Self.patch(client, path, token: token, offset: 0, Data(count: 40)).status == .noContent)
            // Each piece moves the expiry on: an hour after the last one.
            clock.advance(3000)
            #expect(try await Self.patch(client, path, token: token, offset: 40, Data(count: 40)).status == .noContent)
            clock.advance(3000)
            #expect(try await Self.offset(client, path, token: token) == 80)
            #expect(partFiles(server).count == 1)

            clock.advance(601)
            try await waitUntil("the sweep removed the expired upload's bytes") { partFiles(server).isEmpty }
            #expect(try await client.request(.head, path, token: token).status == .notFound)
        }
    }

    @Test func aDeckIsBroughtIntoARoomInPieces() async throws {
        let server = TestServer()
        defer { server.removeData() }
        let pdf = try Data(contentsOf: TestServer.fixtures.appendingPathComponent("cairo-slides.pdf"))
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let created = try await Self.create(
                client, token: token, length: pdf.count,
                metadata: ["target": "room-deck", "session": code, "title": "Results"])
            let path = try #require(created.headers[.location])
            let last = try await Self.send(client, path, token: token, pdf, piece: pdf.count / 2 + 1)
            #expect(last.status == .ok, "\(String(buffer: last.body))")
            let added = try last.object()
            #expect(added["title"] as? String == "Results")
            #expect(added["status"] as? String == "processing")
            let deckId = try #require(added["deckId"] as? String)
            #expect(try await client.waitForDeck(deckId, token: token)["status"] as? String == "ready")
        }
    }

    @Test func aGuestPresenterBringsAClipIntoARoomInPieces() async throws {
        let server = VideoLibraryTests.server()
        defer { server.removeData() }
        let work = try VideoClipMaker.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try Data(contentsOf: try await VideoClipMaker.mp4(seconds: 1, in: work))
        let marked = HTTPField.Name("X-Podium-Request")!
        try await server.run { client in
            let token = try await client.login()
            let code = try await RoomTests.openRoom(client, token: token)
            let ann = try await client.socket(code: code, headers: [.cookie: RoomTests.identity("ann")])
            #expect(try await ann.hello(["role": "presenter", "name": "Ann"])["type"] as? String == "welcome")

            // A browser that has not joined the room as a presenter may not start one.
            var eve = Self.tus
            eve[.cookie] = RoomTests.identity("eve")
            eve[marked] = "1"
            eve[HTTPField.Name("Upload-Length")!] = String(clip.count)
            eve[HTTPField.Name("Upload-Metadata")!] = Self.metadata(["target": "room-video", "session": code])
            let refused = try await client.request(.post, "/api/v1/uploads", headers: eve)
            #expect(refused.status == .forbidden)
            #expect(String(buffer: refused.body).contains("not_in_room"))

            var headers = eve
            headers[.cookie] = RoomTests.identity("ann")
            headers[HTTPField.Name("Upload-Metadata")!] = Self.metadata(
                ["target": "room-video", "session": code, "filename": "demo.mp4"])
            let created = try await client.request(.post, "/api/v1/uploads", headers: headers)
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let path = try #require(created.headers[.location])
            // Another browser does not see it.
            #expect(try await client.request(.head, path, headers: [.cookie: RoomTests.identity("eve")]).status == .notFound)
            #expect(try await client.request(.head, path, token: token).status == .notFound)

            var piece = Self.tus
            piece[.cookie] = RoomTests.identity("ann")
            piece[marked] = "1"
            piece[.contentType] = "application/offset+octet-stream"
            var offset = 0
            var last: TestResponse?
            while offset < clip.count {
                let end = min(offset + clip.count / 3 + 1, clip.count)
                piece[Self.offsetName] = String(offset)
                last = try await client.request(
                    .patch, path, headers: piece, body: ByteBuffer(bytes: clip.subdata(in: offset..<end)))
                offset = end
            }
            let answer = try #require(last)
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let video = try answer.object()
            #expect(video["title"] as? String == "demo")
            let id = try #require(video["id"] as? String)
            let listed = try await client.request(
                .get, "/api/v1/sessions/\(code)/videos", headers: [.cookie: RoomTests.identity("ann"), marked: "1"])
            #expect(try listed.array().compactMap { $0["id"] as? String } == [id])
            // The room's clip is in nobody's library.
            #expect(try await client.request(.get, "/api/v1/videos", token: token).array().isEmpty)
        }
    }
}
