import ArgumentParser
import Foundation
import PodiumClient

/// The CLI's memory of unfinished uploads: `$XDG_STATE_HOME/podium/uploads.json` (else
/// `~/.local/state/podium/uploads.json`), `{fingerprint → upload URL}`. A second run of the same
/// command for the same, unchanged file continues an upload a dropped connection or a killed
/// run left unfinished, and says so on standard error.
struct CLIUploadResumeStore: UploadResumeStore {
    let file = FileUploadResumeStore(file: FileUploadResumeStore.standardFile())
    /// The file's name, as the notice shows it.
    let name: String

    func uploadURL(for fingerprint: String) async -> URL? { await file.uploadURL(for: fingerprint) }
    func remember(_ upload: URL, for fingerprint: String) async { await file.remember(upload, for: fingerprint) }
    func forget(_ fingerprint: String) async { await file.forget(fingerprint) }

    func resuming(_ fingerprint: String, at progress: TransferProgress) async {
        let percent = Int((progress.fraction ?? 0) * 100)
        FileHandle.standardError.write(Data("Resuming \(name) at \(percent) %\n".utf8))
    }
}

/// What `decks import` and `videos import` share: the files checked readable, each one uploaded
/// resumably (a progress bar, the memory of unfinished uploads), waited for unless `--no-wait`,
/// and all printed (`--json`: the REST API's objects). A command says only what differs: how one
/// file goes up, how one waits for it, and its line.
struct FileImport<Item: Encodable & Sendable> {
    var files: [String]
    var noWait: Bool
    /// Uploads one file (its progress bar, the memory to resume it from): what the server made of it.
    var upload: @Sendable (PodiumClient, URL, ProgressHandler?, CLIUploadResumeStore) async throws -> Item
    /// Waits until the item is ready (a deck's pages, a clip's first rendition).
    var waitUntilReady: @Sendable (PodiumClient, Item) async throws -> Item
    /// Its line for people.
    var line: @Sendable (Item) -> String

    /// `--title` names one item: refused with more files (the noun says what: deck, clip).
    static func validate(title: String?, files: [String], noun: String) throws {
        if title != nil, files.count > 1 { throw ValidationError("--title names one \(noun); give one file.") }
    }

    func run(_ remote: RemoteOptions) async throws {
        try await remote.run { output in
            for file in files where !FileManager.default.isReadableFile(atPath: file) {
                throw RemoteFailure.usage("Cannot read \(file).")
            }
            let client = try await remote.client()
            var items: [Item] = []
            for file in files {
                let url = URL(fileURLWithPath: file)
                let progress = output.progressBar("Uploading \(url.lastPathComponent)")
                let uploaded = try await upload(client, url, progress, CLIUploadResumeStore(name: url.lastPathComponent))
                if progress != nil { output.endProgress() }
                items.append(noWait ? uploaded : try await waitUntilReady(client, uploaded))
            }
            try output.emit(items) { items.map(line).joined(separator: "\n") }
        }
    }
}
