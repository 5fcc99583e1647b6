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
