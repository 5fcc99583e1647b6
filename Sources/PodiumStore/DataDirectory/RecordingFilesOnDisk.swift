import Foundation

/// Audio takes' files as `podium backup`, `restore`, `check` and the blob collector see them
/// (issue #44): under `<blob-dir>/recordings`, take `<id>` has its chunks in `<id>.webm`, its HLS
/// package in `<id>/` and, while it is packaged, a work directory `.<id>.work/`. The takes'
/// rows (``DatabaseInventory/recordings``) say which takes exist; files of a take with no row
/// (its session deleted) are orphans, deleted by the blob collector after its grace period.
extension RecordingFiles {
    /// Whether `id` can name a take's files: letters, digits, `_` and `-` (never a path).
    public static func isTakeId(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64
            && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    /// The files of take `id` under `directory` (`<blob-dir>/recordings`), relative to it and
    /// `/`-separated: `<id>.webm` and the files of `<id>/`, those that exist (no work directory).
    public static func files(of id: String, in directory: URL) -> [String] {
        guard isTakeId(id) else { return [] }
        let fileManager = FileManager.default
        var found: [String] = []
        if fileManager.fileExists(atPath: directory.appendingPathComponent("\(id).webm").path) {
            found.append("\(id).webm")
        }
        let package = directory.appendingPathComponent(id, isDirectory: true)
        for name in ((try? fileManager.contentsOfDirectory(atPath: package.path)) ?? []).sorted() where !name.hasPrefix(".") {
            found.append("\(id)/\(name)")
        }
        return found
    }

    /// Every take with something on disk under `directory`: its id and its top-level entries
    /// (`<id>.webm`, `<id>/`, `.<id>.work/`). Other names are left alone.
    public static func takesOnDisk(in directory: URL) -> [String: [URL]] {
        var takes: [String: [URL]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            let id: String
            if name.hasSuffix(".webm") {
                id = String(name.dropLast(5))
            } else if name.hasPrefix("."), name.hasSuffix(".work") {
                id = String(name.dropFirst().dropLast(5))
            } else {
                id = name
            }
            guard isTakeId(id) else { continue }
            takes[id, default: []].append(directory.appendingPathComponent(name))
        }
        return takes
    }

    /// The bytes under `entries` and when the newest of their files was written.
    public static func usage(of entries: [URL]) -> (bytes: Int64, lastWritten: Date) {
        let fileManager = FileManager.default
        var bytes: Int64 = 0
        var newest = Date.distantPast
        func add(_ url: URL) {
            guard let attributes = try? fileManager.attributesOfItem(atPath: url.path) else { return }
            if let modified = attributes[.modificationDate] as? Date, modified > newest { newest = modified }
            if attributes[.type] as? FileAttributeType == .typeDirectory {
                for name in (try? fileManager.contentsOfDirectory(atPath: url.path)) ?? [] {
                    add(url.appendingPathComponent(name))
                }
            } else {
                bytes += (attributes[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        entries.forEach(add)
        return (bytes, newest)
    }
}
