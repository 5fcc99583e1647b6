import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import PodiumServer

/// Accounts, uploads and the library against the real application with real Poppler and qpdf.
@Suite("Library and accounts", .timeLimit(.minutes(5)))
struct LibraryTests {
    @Test func healthAndSecurityHeaders() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let health = try await client.request(.get, "/healthz")
            #expect(health.status == .ok)
            let home = try await client.request(.get, "/")
            #expect(home.status == .ok)
            #expect(home.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(home.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            // A new browser gets its anonymous, HttpOnly viewer identity.
            let cookie = home.headers[.setCookie] ?? ""
            #expect(cookie.contains("podium_viewer=v_") && cookie.contains("HttpOnly"))
            let openAPI = try await client.request(.get, "/api/v1/openapi.yaml")
            #expect(openAPI.status == .ok)
            #expect(String(buffer: openAPI.body).contains("openapi:"))
        }
    }

    @Test(arguments: TestStores.kinds) func signInWithTokenOrCookieAndCSRF(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let wrong = try await client.request(.post, "/api/v1/auth/login", json: #"{"email":"admin","password":"nope"}"#)
            #expect(wrong.status == .unauthorized)
            #expect(wrong.errorCode == "bad_credentials")
            #expect(try await client.request(.get, "/api/v1/me").status == .unauthorized)

            let login = try await client.request(
                .post, "/api/v1/auth/login", json: #"{"email":"admin","password":"\#(TestServer.adminPassword)"}"#)
            let token = try #require(try login.object()["token"] as? String)
            let setCookie = try #require(login.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
            #expect(try await client.request(.get, "/api/v1/me", token: token).object()["email"] as? String == "admin")

            let cookie: HTTPFields = [.cookie: "podium_auth=\(token)"]
            #expect(try await client.request(.get, "/api/v1/me", headers: cookie).status == .ok)
            let forged = try await client.request(.post, "/api/v1/folders", headers: cookie, json: #"{"name":"x"}"#)
            #expect(forged.status == .forbidden)
            #expect(forged.errorCode == "csrf")
            var withHeader = cookie
            withHeader[HTTPField.Name("X-Podium-Request")!] = "1"
            #expect(
                try await client.request(.post, "/api/v1/folders", headers: withHeader, json: #"{"name":"x"}"#).status == .created
            )

            #expect(try await client.request(.post, "/api/v1/auth/logout", token: token).status == .noContent)
            #expect(try await client.request(.get, "/api/v1/me", token: token).status == .unauthorized)
        }
    }

    @Test func uploadsFromDifferentProducersBecomeReadyDecks() async throws {
        let server = TestServer()
        defer { server.removeData() }
        // PDFs made by different producers (see Tests/Fixtures/make-fixtures.sh); the broken and
        // hostile fixtures have tests of their own.
        let good = [
            "cairo-slides.pdf", "ghostscript-a4.pdf", "recoded.pdf", "linearized.pdf", "rotated.pdf", "owner-locked.pdf",
        ]
        try await server.run { client in
            let token = try await client.login()
            for name in good {
                let created = try await client.upload(TestServer.fixtures.appendingPathComponent(name), token: token)
                #expect(created.status == .created, "\(name)")
                let id = try #require(try created.object()["id"] as? String)
                #expect(try created.object()["status"] as? String == "processing")
                let deck = try await client.waitForDeck(id, token: token)
                #expect(deck["status"] as? String == "ready", "\(name): \(deck)")
                let pages = try #require(deck["pages"] as? [[String: Any]])
                #expect(pages.count == deck["pageCount"] as? Int)
                #expect(pages.first?["number"] as? Int == 1)
                for page in pages {
                    #expect((page["width"] as? Double ?? 0) > 0)
                    for key in ["imageUrl", "mediumUrl", "thumbnailUrl"] {
                        #expect((page[key] as? String)?.hasPrefix("/blobs/") == true)
                    }
                }
                let image = try await client.request(.get, try #require(pages.first?["imageUrl"] as? String))
                #expect(image.status == .ok)
                #expect(image.headers[.contentType] == "image/jpeg")
                #expect(image.headers[.cacheControl]?.contains("immutable") == true)
                #expect(image.body.readableBytesView.starts(with: [0xFF, 0xD8]))
            }
            let library = try await client.request(.get, "/api/v1/decks", token: token).array()
            #expect(library.count == good.count)
            #expect(library.allSatisfy { ($0["thumbnailUrl"] as? String)?.hasPrefix("/blobs/") == true })
        }
    }

    @Test func multipartUploadTakesItsTitleFromTheFileName() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let pdf = try Data(contentsOf: TestServer.demoDeck)
            var body = Data("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Quarterly review.pdf\"\r\n".utf8)
            body += Data("Content-Type: application/pdf\r\n\r\n".utf8) + pdf + Data("\r\n--XyZ--\r\n".utf8)
            let response = try await client.request(
                .post, "/api/v1/decks", token: token, headers: [.contentType: "multipart/form-data; boundary=XyZ"],
                body: ByteBuffer(bytes: body))
            #expect(response.status == .created)
            #expect(try response.object()["title"] as? String == "Quarterly review")
            let deck = try await client.waitForDeck(try #require(try response.object()["id"] as? String), token: token)
            #expect(deck["status"] as? String == "ready")
        }
    }

    @Test func badFilesGetClearErrorsAndTheLibraryIsUnaffected() async throws {
        let server = TestServer { $0.maxUploadBytes = 400 * 1024 }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let goodId = try await client.readyDeck(token: token)

            // Text named .pdf (a PNG named so is a deck now: an image makes a page).
            let notPDF = try await client.request(
                .post, "/api/v1/decks", token: token, headers: [.contentType: "application/pdf"],
                body: ByteBuffer(string: "These are meeting notes, not a PDF at all.\n"))
            #expect(notPDF.status == .unsupportedMediaType)
            #expect(notPDF.errorCode == "unsupported_type")
            let empty = try await client.upload(TestServer.fixtures.appendingPathComponent("empty.pdf"), token: token)
            #expect(empty.status == .badRequest)
            #expect(empty.errorCode == "empty")
            let huge = try await client.request(
                .post, "/api/v1/decks", token: token, headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: Array("%PDF-1.7\n".utf8) + [UInt8](repeating: 0x20, count: 600 * 1024)))
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorCode == "too_large")

            for (name, code) in [("encrypted.pdf", "encrypted"), ("truncated.pdf", "corrupt"), ("garbage.pdf", "corrupt")] {
                let created = try await client.upload(TestServer.fixtures.appendingPathComponent(name), token: token)
                #expect(created.status == .created)
                let deck = try await client.waitForDeck(try #require(try created.object()["id"] as? String), token: token)
                #expect(deck["status"] as? String == "failed", "\(name)")
                let error = deck["error"] as? [String: Any]
                #expect(error?["code"] as? String == code, "\(name): \(deck)")
                #expect((error?["message"] as? String)?.isEmpty == false)
            }
            let good = try await client.request(.get, "/api/v1/decks/\(goodId)", token: token).object()
            #expect(good["status"] as? String == "ready")
            #expect((good["pages"] as? [Any])?.count == good["pageCount"] as? Int)
        }
    }

    @Test(arguments: TestStores.kinds) func renameMoveIntoFoldersAndDelete(_ store: StoreKind) async throws {
        let server = TestServer(store: store)
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let id = try await client.readyDeck(token: token)
            let folder = try await client.request(.post, "/api/v1/folders", token: token, json: #"{"name":"Lectures"}"#).object()
            let folderId = try #require(folder["id"] as? String)

            let renamed = try await client.request(
                .patch, "/api/v1/decks/\(id)", token: token, json: #"{"title":"Week 1","folderId":"\#(folderId)"}"#)
            #expect(try renamed.object()["title"] as? String == "Week 1")
            #expect(try await client.request(.get, "/api/v1/decks?folderId=\(folderId)", token: token).array().count == 1)
            let moved = try await client.request(.patch, "/api/v1/decks/\(id)", token: token, json: #"{"folderId":null}"#)
            #expect(try moved.object()["folderId"] == nil)
            #expect(try await client.request(.get, "/api/v1/decks?folderId=\(folderId)", token: token).array().isEmpty)
            #expect(
                try await client.request(.patch, "/api/v1/decks/\(id)", token: token, json: #"{"title":"  "}"#).status
                    == .badRequest)
            #expect(
                try await client.request(.patch, "/api/v1/decks/\(id)", token: token, json: #"{"folderId":"f_missing"}"#).status
                    == .notFound)

            #expect(
                try await client.request(.patch, "/api/v1/folders/\(folderId)", token: token, json: #"{"name":"Talks"}"#).status
                    == .ok)
            #expect(try await client.request(.get, "/api/v1/folders", token: token).array().first?["name"] as? String == "Talks")
            #expect(try await client.request(.delete, "/api/v1/folders/\(folderId)", token: token).status == .noContent)

            #expect(try await client.request(.delete, "/api/v1/decks/\(id)", token: token).status == .noContent)
            #expect(try await client.request(.get, "/api/v1/decks/\(id)", token: token).status == .notFound)
            #expect(try await client.request(.get, "/api/v1/decks", token: token).array().isEmpty)
        }
    }
}
