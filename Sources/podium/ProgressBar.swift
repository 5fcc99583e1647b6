import Foundation
import PodiumClient
import PodiumStore
import Synchronization

/// `label [##########....................]  42%  1.2 MB` on standard error, redrawn in place when
/// the percentage changes; nothing when standard error is not a terminal (scripts, `--json`).
/// The remote commands show their transfers with it, the data-directory commands their phases.
final class ProgressBar: Sendable {
    let label: String
    let enabled: Bool
    private let last = Mutex(-1)

    init(label: String = "", enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.enabled = enabled
    }

    /// An upload's or download's bytes so far (a fraction when the size is known).
    func show(_ progress: TransferProgress) {
        draw(
            label, fraction: progress.fraction,
            detail: ByteCountFormatter.string(fromByteCount: progress.bytes, countStyle: .file))
    }

    /// A backup's, restore's or check's phase and how far it is.
    func update(_ progress: DataDirectoryProgress) {
        let fraction = progress.total > 0 ? min(1, Double(progress.done) / Double(progress.total)) : 0
        draw(progress.phase.padding(toLength: 10, withPad: " ", startingAt: 0), fraction: fraction, detail: "")
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private func draw(_ label: String, fraction: Double?, detail: String) {
        guard enabled else { return }
        let percent = fraction.map { Int($0 * 100) } ?? -2
        let changed = last.withLock { last in
            defer { last = percent }
            return last != percent || percent == -2
        }
        guard changed else { return }
        let line: String
        if let fraction {
            let filled = Int(fraction * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            line = "\r\(label) [\(bar)] \(percent)%" + (detail.isEmpty ? "" : "  \(detail)")
        } else {
            line = "\r\(label) \(detail)"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }
}
