import ChildProcesses
import Foundation
import HTTPTypes
import NIOCore
import PodiumMedia
import PodiumStore
import Testing

@testable import PodiumServer

#if canImport(Glibc)
    import Glibc
#endif

/// Office decks through the whole server: upload, the `convert` step with the real LibreOffice,
/// the PDF ingest, the notes and outline in the deck API, and never in what viewers receive.
@Suite("Office decks", .serialized, .timeLimit(.minutes(5)))
struct OfficeDeckTests {
    /// Uploads `data` as the raw body (the library sends files so).
    func upload(_ client: Client, _ data: Data, token: String, name: String? = nil) async throws -> TestResponse {
        var path = "/api/v1/decks"
        if let name { path += "?title=\(name)" }
        return try await client.request(
            .post, path, token: token, headers: [.contentType: "application/octet-stream"], body: ByteBuffer(bytes: data))
    }

    /// Files left under a directory (none is the point after a failure).
    static func files(under directory: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var found: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            var isDirectory: ObjCBool = false
            // The blob directory's lock file (BlobStoreLock) is the store's own, not something left behind.
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                url.lastPathComponent != BlobStoreLock.fileName
            {
                found.append(url.lastPathComponent)
            }
        }
        return found
    }

    /// Waits (a bounded wait on a condition, polled) until no file is left under `directory`.
    static func waitUntilEmpty(_ directory: URL) async throws {
        for _ in 0..<200 where !files(under: directory).isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        #expect(files(under: directory).isEmpty, "left behind: \(files(under: directory))")
    }

    @Test(
        "a PPTX becomes a ready deck with pages, outline and speaker notes; viewers never get the notes",
        arguments: TestStores.kinds)
    func pptx(store: StoreKind) async throws {
        let pptx = try Data(contentsOf: try await ServerOfficeCorpus.file("slides.pptx"))
        let server = TestServer(store: store) { $0.officeLimits.timeout = .seconds(90) }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let response = try await client.request(
                .post, "/api/v1/decks", token: token, headers: [.contentType: "application/octet-stream"],
                body: ByteBuffer(bytes: pptx))
            #expect(response.status == .created)
            let id = try #require(try response.object()["id"] as? String)
            let deck = try await client.waitForDeck(id, token: token)
            #expect(deck["status"] as? String == "ready", "\(deck)")
            #expect(deck["pageCount"] as? Int == 3)
            let outline = try #require(deck["outline"] as? [[String: Any]])
            #expect(outline.compactMap { $0["title"] as? String } == ["Welcome to Podium", "Why decks matter", "Thank you"])
            let notes = try #require(deck["speakerNotes"] as? [[String: Any]])
            #expect(notes.compactMap { $0["page"] as? Int } == [1, 3])
            #expect(notes.first?["text"] as? String == "Say hello & smile.\nMention the Wi-Fi code.")

            // The deck's PDF is the converted one; the uploaded PPTX is gone from the blobs.
            let pdf = try await client.request(.get, "/api/v1/decks/\(id)/pdf", token: token)
            #expect(pdf.status == .ok)
            #expect(Array(Data(buffer: pdf.body).prefix(5)) == Array("%PDF-".utf8))
            let blobs = Self.files(under: server.configuration.blobDirectory)
            #expect(!blobs.contains { $0.hasSuffix(".pptx") }, "\(blobs)")
            // The job's work directory (LibreOffice's profile, the PDF, the images) goes as the
            // job ends, just after the deck is marked ready.
            try await Self.waitUntilEmpty(server.configuration.temporaryDirectory)

            // The library's listing stays small: no notes there.
            let listing = try await client.request(.get, "/api/v1/decks", token: token)
            #expect(!String(buffer: listing.body).contains("Wi-Fi"))

            // A viewer's welcome, the session's public info and the events of a page turn carry
            // the outline's pages but never a note.
            let code = try #require(try await client.startSession(deckId: id, token: token)["code"] as? String)
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            let welcome = try await viewer.hello(["role": "viewer"])
            #expect(welcome["type"] as? String == "welcome")
            let welcomeText = String(decoding: try JSONSerialization.data(withJSONObject: welcome), as: UTF8.self)
            #expect(welcomeText.contains("imageUrl"))
            for secret in ["Wi-Fi", "smile", "Überraschung", "speakerNotes"] {
                #expect(!welcomeText.contains(secret), "the welcome has \(secret)")
            }
            let info = try await client.request(.get, "/api/v1/sessions/\(code)")
            #expect(!String(buffer: info.body).contains("Wi-Fi"))
            try await presenter.send(#"{"type":"goto","id":"to-3","page":3}"#)
            _ = try await presenter.next(ofType: "ack")
            var seen: [String] = []
            while let text = await viewer.nextText() {
                seen.append(text)
                if text.contains("\"page\":3") { break }
            }
            #expect(!seen.joined().contains("questions."), "a viewer's event has the notes")
        }
    }

    @Test(
        "bad Office files fail with clear codes and leave no files, blobs or profiles behind",
        arguments: TestStores.kinds)
    func hostile(store: StoreKind) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("podium-office-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let hang = try ServerOfficeCorpus.hangingConverter(in: scratch)
        let server = TestServer(store: store) {
            $0.officeLimits.converter = hang.path
            $0.officeLimits.timeout = .seconds(1)
            $0.officeLimits.maxExpandedBytes = 20 * 1024 * 1024
        }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let cases: [(Data, String)] = [
                (try Data(contentsOf: try await ServerOfficeCorpus.file("slides.pptx")), "convert_timeout"),
                (try Data(contentsOf: try await ServerOfficeCorpus.file("locked.odp")), "encrypted"),
                (try Data(contentsOf: try await ServerOfficeCorpus.zipBomb(megabytes: 40, in: scratch)), "zip_bomb"),
            ]
            for (data, code) in cases {
                let response = try await upload(client, data, token: token)
                #expect(response.status == .created)
                let id = try #require(try response.object()["id"] as? String)
                let deck = try await client.waitForDeck(id, token: token)
                #expect(deck["status"] as? String == "failed")
                #expect((deck["error"] as? [String: Any])?["code"] as? String == code, "\(deck)")
                let message = (deck["error"] as? [String: Any])?["message"] as? String
                #expect(message?.isEmpty == false)
            }
            // Nothing behind: no blobs (not even the uploads), no work directories, no profiles.
            #expect(Self.files(under: server.configuration.blobDirectory).isEmpty)
            try await Self.waitUntilEmpty(server.configuration.temporaryDirectory)

            let unknown = try await upload(client, Data("just some text\n".utf8), token: token)
            #expect(unknown.status == .unsupportedMediaType)
            #expect(unknown.errorCode == "unsupported_type")
        }
    }

    @Test("several images in one multipart upload make one deck, a page each, in natural order")
    func images() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("podium-office-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let boundary = "podium-\(UUID().uuidString)"
            var body = Data()
            // Sent out of order: page order comes from the names (p2 before p10).
            for (name, size) in [("p10.png", "200x100"), ("p2.png", "100x200"), ("p1.png", "150x150")] {
                let file = scratch.appendingPathComponent(name)
                try await ServerOfficeCorpus.run(
                    "/usr/bin/ffmpeg",
                    ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=\(size)", "-frames:v", "1", file.path])
                body.append(
                    Data(
                        "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\nContent-Type: image/png\r\n\r\n"
                            .utf8))
                body.append(try Data(contentsOf: file))
                body.append(Data("\r\n".utf8))
            }
            body.append(Data("--\(boundary)--\r\n".utf8))
            let response = try await client.request(
                .post, "/api/v1/decks", token: token, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"],
                body: ByteBuffer(bytes: body))
            #expect(response.status == .created)
            #expect(try response.object()["title"] as? String == "p10")
            let id = try #require(try response.object()["id"] as? String)
            let deck = try await client.waitForDeck(id, token: token)
            #expect(deck["status"] as? String == "ready", "\(deck)")
            let pages = try #require(deck["pages"] as? [[String: Any]])
            let shapes = pages.map { page -> String in
                let width = page["width"] as? Double ?? 0
                let height = page["height"] as? Double ?? 0
                return width > height ? "wide" : width < height ? "tall" : "square"
            }
            #expect(shapes == ["square", "tall", "wide"])
        }
    }
}

/// The Office corpus for the server's tests: the same script and cache as PodiumMediaTests'
/// `OfficeCorpus` (the first to need it makes it).
enum ServerOfficeCorpus {
    static let script = TestServer.repositoryRoot.appendingPathComponent("Tests/Fixtures/office/make-corpus.py")
    static let files = ["slides.pptx", "slides.odp", "slides.ppt", "letter.docx", "letter.odt", "locked.odp"]

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static func file(_ name: String) async throws -> URL { try await made.value.appendingPathComponent(name) }

    private static let made = Task.detached { () async throws -> URL in
        let text = try Data(contentsOf: script)
        let checksum = text.reduce(UInt64(1_469_598_103_934_665_603)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-office-corpus-\(String(checksum, radix: 16))", isDirectory: true)
        func complete() -> Bool {
            files.allSatisfy { FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
        }
        if complete() { return directory }
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-office-corpus-\(UUID().uuidString)", isDirectory: true)
        let status = try await run("/usr/bin/python3", [script.path, staging.path])
        guard status == 0 else {
            throw Unavailable(description: "make-corpus.py failed (\(status)): is LibreOffice (python3-uno) installed?")
        }
        if !complete() {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.moveItem(at: staging, to: directory)
        }
        try? FileManager.default.removeItem(at: staging)
        guard complete() else { throw Unavailable(description: "the corpus is incomplete in \(directory.path)") }
        return directory
    }

    @discardableResult
    static func run(_ program: String, _ arguments: [String]) async throws -> Int32 {
        let process = ChildProcess(
            URL(fileURLWithPath: program), arguments: arguments, standardOutput: .null, standardError: .null)
        try process.run()
        return await process.exited().status
    }

    static func zipBomb(megabytes: Int, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("bomb.pptx")
        let code = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
            z.writestr("[Content_Types].xml", "<Types/>")
            z.writestr("ppt/presentation.xml", b"<" + b" " * (int(sys.argv[2]) * 1024 * 1024))
            z.close()
            """
        try await run("/usr/bin/python3", ["-c", code, url.path, String(megabytes)])
        return url
    }

    /// A converter that never finishes (and starts a child that would outlive it).
    static func hangingConverter(in directory: URL) throws -> URL {
        let script = directory.appendingPathComponent("hang.sh")
        try "#!/bin/sh\nsleep 600 &\nwait\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return script
    }
}
