import Foundation
import PodiumMedia
import PodiumStore

/// Stores a packaged clip as blobs. Blobs are one flat namespace (`/blobs/<sha256>.<ext>`), so
/// the playlists and the thumbnail track are rewritten to refer to the blob names of the files
/// they list: relative URLs that resolve beside the playlist, wherever the blobs are served.
/// The names are planned (hashed) first, so the worker can record them before it stores
/// anything: a run stopped half way leaves blobs its successor knows to remove.
enum HLSBlobs {
    struct Stored: Sendable, Equatable {
        var masterPlaylist: String
        /// The variants with their `playlist` as a blob name.
        var variants: [PackagedVideo.Variant]
        var poster: String?
        var thumbnailSprite: String?
        var thumbnailTrack: String?
        var mp4: String?
        /// Every blob stored.
        var files: [String]
    }

    struct MissingReference: Error, CustomStringConvertible {
        let file: String
        let reference: String
        var description: String { "\(file) refers to \(reference), which was not written" }
    }

    /// What storing a package will write: each file (rewritten ones in the package's directory)
    /// and its blob name, known before anything is stored so the names can be recorded first.
    struct Plan: Sendable {
        var files: [(file: URL, name: String)]
        var stored: Stored
    }

    /// Names every file by its content, rewriting the playlists and the track to name theirs.
    static func plan(_ packaged: PackagedVideo) throws -> Plan {
        // Path relative to the directory → blob name; what is stored already (a reused rung) first.
        var names: [String: String] = packaged.stored
        var files: [(file: URL, name: String)] = []
        func add(_ file: URL, fileExtension: String) throws -> String {
            let name = "\(try FileBlobStore.sha256(of: file)).\(fileExtension)"
            files.append((file, name))
            return name
        }
        let isText = { (path: String) in path.hasSuffix(".m3u8") || path.hasSuffix(".vtt") }
        for path in packaged.files where !isText(path) {
            let fileExtension = (path as NSString).pathExtension.lowercased()
            names[path] = try add(packaged.directory.appendingPathComponent(path), fileExtension: fileExtension)
        }
        // Media playlists first, then the master that lists them.
        let playlists = packaged.files.filter { $0.hasSuffix(".m3u8") && $0 != packaged.masterPlaylist }
        for path in playlists + [packaged.masterPlaylist] {
            let rewritten = try rewrite(path, in: packaged.directory, names: names) { try rewritePlaylist($0, resolve: $1) }
            names[path] = try add(rewritten, fileExtension: "m3u8")
        }
        if let track = packaged.thumbnailTrack {
            let rewritten = try rewrite(track, in: packaged.directory, names: names) { try rewriteTrack($0, resolve: $1) }
            names[track] = try add(rewritten, fileExtension: "vtt")
        }
        let variants = try packaged.variants.map { variant in
            var stored = variant
            stored.playlist = try name(of: variant.playlist, in: names, referredFrom: packaged.masterPlaylist)
            return stored
        }
        let stored = Stored(
            masterPlaylist: try name(of: packaged.masterPlaylist, in: names, referredFrom: "the package"),
            variants: variants, poster: packaged.poster.flatMap { names[$0] },
            thumbnailSprite: packaged.thumbnailSprite.flatMap { names[$0] },
            thumbnailTrack: packaged.thumbnailTrack.flatMap { names[$0] }, mp4: packaged.mp4.flatMap { names[$0] },
            files: Array(Set(names.values)).sorted())
        return Plan(files: files, stored: stored)
    }

    /// Stores the planned files, segments before the playlists that list them, so a playlist's
    /// name never leads to a missing segment.
    static func put(_ plan: Plan, in blobs: any BlobStore) throws {
        for (file, name) in plan.files {
            let stored = try blobs.put(fileAt: file, fileExtension: (name as NSString).pathExtension)
            guard stored == name else { throw NameMismatch(planned: name, stored: stored) }
        }
    }

    struct NameMismatch: Error, CustomStringConvertible {
        let planned: String
        let stored: String
        var description: String { "a blob planned as \(planned) was stored as \(stored)" }
    }

    /// Rewrites the text file at `path` with `rewrite` (given a resolver from a reference to its
    /// blob name) into a new file beside the package's files.
    private static func rewrite(
        _ path: String, in directory: URL, names: [String: String],
        _ rewrite: (String, (String) throws -> String) throws -> String
    ) throws -> URL {
        let text = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
        let base = (path as NSString).deletingLastPathComponent
        let rewritten = try rewrite(text) { reference in
            let resolved = base.isEmpty ? reference : base + "/" + reference
            return try name(of: (resolved as NSString).standardizingPath, in: names, referredFrom: path)
        }
        let file = directory.appendingPathComponent(".rewritten-\(UUID().uuidString)")
        try Data(rewritten.utf8).write(to: file)
        return file
    }

    private static func name(of path: String, in names: [String: String], referredFrom file: String) throws -> String {
        guard let name = names[path] else { throw MissingReference(file: file, reference: path) }
        return name
    }

    /// The blobs a stored master playlist plays (itself, its media playlists and their
    /// segments and init files), and the poster: what a clip that is `ready` serves, whatever
    /// else its record lists. Names that are no stored blob are left out.
    static func reachable(from master: String?, poster: String?, in blobs: any BlobStore) -> [String] {
        var found = Set<String>()
        var pending = master.map { [$0] } ?? []
        while let name = pending.popLast() {
            guard !found.contains(name), let url = blobs.file(named: name) else { continue }
            found.insert(name)
            guard name.hasSuffix(".m3u8"), let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            _ = try? rewritePlaylist(text) { reference in
                pending.append(reference)
                return reference
            }
        }
        if let poster, blobs.file(named: poster) != nil { found.insert(poster) }
        return found.sorted()
    }

    /// Writes to `url` a copy of the stored media playlist `name` naming its files by their paths
    /// in the blob store, so ffmpeg can read the rendition (a reused rung's, for the MP4 and the
    /// thumbnails). Throws ``MissingReference`` when one of them is missing.
    static func writeReadableCopy(of name: String, in blobs: any BlobStore, to url: URL) throws {
        guard let file = blobs.file(named: name) else { throw MissingReference(file: "the clip", reference: name) }
        let text = try rewritePlaylist(try String(contentsOf: file, encoding: .utf8)) { reference in
            guard let path = blobs.file(named: reference)?.path else { throw MissingReference(file: name, reference: reference) }
            return path
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Whether every playlist under the stored playlist `name` (itself, the media playlists a
    /// master lists) exists and reads as text.
    static func readsWhole(_ name: String, in blobs: any BlobStore) -> Bool {
        var pending = [name]
        var seen = Set<String>()
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            guard let url = blobs.file(named: next), let text = try? String(contentsOf: url, encoding: .utf8) else {
                return false
            }
            _ = try? rewritePlaylist(text) { reference in
                if reference.hasSuffix(".m3u8") { pending.append(reference) }
                return reference
            }
        }
        return true
    }

    /// Every URI of a playlist: the lines that are not tags, and the `URI="…"` attributes of tags.
    static func rewritePlaylist(_ text: String, resolve: (String) throws -> String) throws -> String {
        var lines: [String] = []
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                lines.append(trimmed)
            } else if !trimmed.hasPrefix("#") {
                lines.append(try resolve(trimmed))
            } else if let start = trimmed.range(of: "URI=\""),
                let end = trimmed.range(of: "\"", range: start.upperBound..<trimmed.endIndex)
            {
                let uri = String(trimmed[start.upperBound..<end.lowerBound])
                lines.append(trimmed.replacingCharacters(in: start.upperBound..<end.lowerBound, with: try resolve(uri)))
            } else {
                lines.append(trimmed)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The sprite URL of each cue (`sprite.jpg#xywh=…`).
    static func rewriteTrack(_ text: String, resolve: (String) throws -> String) throws -> String {
        try text.components(separatedBy: "\n").map { line in
            guard let hash = line.range(of: "#xywh=") else { return line }
            return try resolve(String(line[..<hash.lowerBound])) + line[hash.lowerBound...]
        }.joined(separator: "\n")
    }
}
