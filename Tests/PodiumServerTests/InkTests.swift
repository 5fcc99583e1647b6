import ChildProcesses
import Foundation
import HTTPTypes
import PodiumMedia
import Testing

@testable import PodiumServer

/// Ink on slides: live while drawn, durable when committed, and drawn into the exported PDF.
@Suite("Ink", .timeLimit(.minutes(3)))
struct InkTests {
    static let redStroke =
        ##"{"type":"stroke","id":"s1","stroke":{"page":2,"tool":"pen","color":"#FF0000","width":0.02,"points":[[0.1,0.5,0.5],[0.5,0.5,0.5],[0.9,0.5,0.5]]}}"##

    @Test func strokesAreLiveDurableAndErasable() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let viewer = try await client.socket(code: code)
            _ = try await viewer.hello(["role": "viewer"])

            try await presenter.send(
                ##"{"type":"inking","page":2,"tool":"pen","color":"#FF0000","width":0.02,"points":[[0.1,0.5,0.5]]}"##)
            #expect((try await viewer.next(ofType: "inking")?["points"] as? [[Double]])?.count == 1)
            try await presenter.send(Self.redStroke)
            let stroke = try #require(try await viewer.next(ofType: "stroke"))
            #expect((stroke["stroke"] as? [String: Any])?["id"] as? String == "s1")
            #expect(stroke["seq"] as? Int == 1)

            for bad in [
                ##"{"type":"stroke","id":"b1","stroke":{"page":9,"tool":"pen","color":"#FF0000","width":0.02,"points":[[0.1,0.1]]}}"##,
                #"{"type":"stroke","id":"b2","stroke":{"page":1,"tool":"pen","color":"red","width":0.02,"points":[[0.1,0.1]]}}"#,
                ##"{"type":"stroke","id":"b3","stroke":{"page":1,"tool":"pen","color":"#FF0000","width":0.02,"points":[[1.5,0.1]]}}"##,
                ##"{"type":"stroke","id":"b4","stroke":{"page":1,"tool":"pen","color":"#FF0000","width":0.02,"points":[]}}"##,
            ] {
                try await presenter.send(bad)
                #expect(try await presenter.next(ofType: "error")?["code"] as? String == "invalid_stroke", "\(bad)")
            }
            try await viewer.send(Self.redStroke.replacingOccurrences(of: "\"s1\"", with: "\"v1\""))
            #expect(try await viewer.next(ofType: "error")?["code"] as? String == "forbidden")

            let late = try await client.socket(code: code)
            let welcome = try await late.hello(["role": "viewer"])
            #expect(((welcome["snapshot"] as? [String: Any])?["strokes"] as? [Any])?.count == 1)

            try await presenter.send(#"{"type":"erase","id":"e1","strokeId":"s1"}"#)
            #expect(try await viewer.next(ofType: "erased")?["strokeId"] as? String == "s1")
            try await presenter.send(#"{"type":"erase","id":"e2","strokeId":"s1"}"#)
            #expect(try await presenter.next(ofType: "error")?["code"] as? String == "stroke_not_found")
        }
    }

    @Test func theExportedPDFHasTheInkAsVectorsOnItsPage() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            try await presenter.send(Self.redStroke)
            _ = try await presenter.next(ofType: "ack")

            #expect(try await client.request(.get, "/api/v1/sessions/\(code)/export.pdf").status == .forbidden)
            let export = try await client.request(.get, "/api/v1/sessions/\(code)/export.pdf", token: token)
            #expect(export.status == .ok)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("podium-export-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let pdf = directory.appendingPathComponent("export.pdf")
            try Data(buffer: export.body).write(to: pdf)

            let info = try await Self.run("pdfinfo", [pdf.path])
            #expect(info.contains("Pages:           6"))
            // Render pages 1 and 2 small: only page 2 has the red line across its middle.
            _ = try await Self.run(
                "pdftoppm", ["-r", "20", "-f", "1", "-l", "2", pdf.path, directory.appendingPathComponent("page").path])
            let pages = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".ppm") }
                .sorted()
            #expect(pages.count == 2)
            #expect(try !Self.hasRed(directory.appendingPathComponent(pages[0])))
            #expect(try Self.hasRed(directory.appendingPathComponent(pages[1])))
        }
    }

    /// Runs a tool to its end on a thread of its own, not one of the pool's (see `blocking`).
    static func run(_ tool: String, _ arguments: [String]) async throws -> String {
        try await blocking {
            let pipe = Pipe()
            let process = ChildProcess(
                URL(fileURLWithPath: "/usr/bin/env"), arguments: [tool] + arguments, standardOutput: .pipe(pipe))
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// Whether a binary PPM (P6) has a strongly red pixel.
    static func hasRed(_ url: URL) throws -> Bool {
        let bytes = [UInt8](try Data(contentsOf: url))
        // Header: "P6\n<w> <h>\n255\n" — skip three whitespace-ended tokens after the magic.
        var index = 0
        var fields = 0
        while fields < 4, index < bytes.count {
            if bytes[index] == 0x0A || bytes[index] == 0x20 { fields += 1 }
            index += 1
        }
        var offset = index
        while offset + 2 < bytes.count {
            if bytes[offset] > 180 && bytes[offset + 1] < 90 && bytes[offset + 2] < 90 { return true }
            offset += 3
        }
        return false
    }
}
