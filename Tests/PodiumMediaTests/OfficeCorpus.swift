import ChildProcesses
import Foundation
import PodiumMedia

#if canImport(Glibc)
    import Glibc
#endif

/// The Office corpus (`Tests/Fixtures/office/make-corpus.py`), made with the machine's own
/// LibreOffice once per test run and kept in the temporary directory under the script's checksum,
/// so later runs reuse it. Hostile files are made here, from the real ones.
enum OfficeCorpus {
    static let script = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/office/make-corpus.py")
    static let files = ["slides.pptx", "slides.odp", "slides.ppt", "letter.docx", "letter.odt", "locked.odp"]

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The corpus directory, made on first use.
    static var directory: URL {
        get async throws { try await made.value }
    }

    static func file(_ name: String) async throws -> URL { try await directory.appendingPathComponent(name) }

    private static let made = Task.detached { () async throws -> URL in
        let text = try Data(contentsOf: script)
        let checksum = text.reduce(UInt64(1_469_598_103_934_665_603)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-office-corpus-\(String(checksum, radix: 16))", isDirectory: true)
        if files.allSatisfy({ FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }) {
            return directory
        }
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podium-office-corpus-\(UUID().uuidString)", isDirectory: true)
        let status = try await run("/usr/bin/python3", [script.path, staging.path])
        guard status == 0 else {
            throw Unavailable(description: "make-corpus.py failed (\(status)): is LibreOffice (python3-uno) installed?")
        }
        // The server's tests may have made it meanwhile (both suites share the cache).
        func complete() -> Bool {
            files.allSatisfy { FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
        }
        if !complete() {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.moveItem(at: staging, to: directory)
        }
        try? FileManager.default.removeItem(at: staging)
        guard complete() else { throw Unavailable(description: "the corpus is incomplete in \(directory.path)") }
        return directory
    }

    /// Runs a program to its end, waiting without holding a thread of the cooperative pool: a
    /// blocking wait here held one of the two a two-core machine has while LibreOffice ran.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) async throws -> Int32 {
        let process = ChildProcess(
            URL(fileURLWithPath: program), arguments: arguments, standardOutput: .null, standardError: .null)
        try process.run()
        return await process.exited().status
    }

    /// A ZIP whose `ppt/presentation.xml` expands from about `megabytes / 1000` to `megabytes`.
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

    /// A ZIP that sniffs as a PPTX but whose parts are not XML at all.
    static func corruptPPTX(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("corrupt.pptx")
        let junk = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        try ZipArchive.stored([
            ("[Content_Types].xml", junk), ("_rels/.rels", junk), ("ppt/presentation.xml", junk),
            ("ppt/slides/slide1.xml", junk),
        ]).write(to: url)
        return url
    }

    /// A converter that never finishes: it starts a child that sleeps, records both pids, and waits.
    static func hangingConverter(in directory: URL) throws -> (script: URL, pids: URL) {
        let script = directory.appendingPathComponent("hang.sh")
        let pids = directory.appendingPathComponent("pids")
        try """
        #!/bin/sh
        sleep 600 &
        echo "$$ $!" > "\(pids.path)"
        wait
        """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return (script, pids)
    }

    /// Whether a process is gone (or a zombie nobody has reaped yet: it runs nothing any more).
    static func isGone(_ pid: Int32) -> Bool {
        if kill(pid, 0) != 0 { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return true }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).prefix(1)
        return state == "Z" || state == "X"
    }
}
