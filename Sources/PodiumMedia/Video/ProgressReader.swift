import Foundation
import Synchronization

/// Reads `ffmpeg -progress pipe:1` as it arrives: `key=value` lines, of which `out_time_us` says
/// how far into the clip the output has come. Chunks may split a line anywhere.
final class ProgressReader: Sendable {
    private let pending = Mutex(Data())
    private let report: @Sendable (_ microseconds: Int64) -> Void

    init(report: @escaping @Sendable (_ microseconds: Int64) -> Void) {
        self.report = report
    }

    func consume(_ chunk: Data) {
        let lines: [Substring] = pending.withLock { buffer in
            buffer.append(chunk)
            guard let lastNewline = buffer.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
            let complete = String(decoding: buffer[buffer.startIndex...lastNewline], as: UTF8.self)
            buffer = Data(buffer[(lastNewline + 1)...])
            return complete.split(whereSeparator: \.isNewline)
        }
        for line in lines where line.hasPrefix("out_time_us=") {
            // "N/A" before the first frame is written.
            if let value = Int64(line.dropFirst("out_time_us=".count)), value >= 0 { report(value) }
        }
    }
}
