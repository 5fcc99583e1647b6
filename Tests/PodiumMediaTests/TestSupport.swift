import Foundation
import PodiumMedia
import Synchronization

/// Helpers shared by the PodiumMedia tests: fixtures, scratch directories, JPEG sizes, progress capture.
enum TestSupport {
    /// `Tests/Fixtures/pdf/NAME`, found relative to this source file so tests run from any directory.
    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath)
            .resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pdf/\(name)")
    }

    /// `Public/demo/podium-demo.pdf`, the deck new servers offer, made by `scripts/make-demo-deck.py`.
    static var demoDeck: URL {
        URL(fileURLWithPath: #filePath)
            .resolvingSymlinksInPath()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Public/demo/podium-demo.pdf")
    }

    /// A fresh directory under the system temporary directory; the caller removes it.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("podium-media-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The pixel size in a JPEG's start-of-frame marker, or `nil` when the file is not a JPEG.
    ///
    /// Walks the marker segments after SOI; SOF0–SOF15 (except DHT, JPG and DAC, which share the range)
    /// hold the height then the width as big-endian 16-bit numbers.
    static func jpegSize(_ url: URL) throws -> (width: Int, height: Int)? {
        let bytes = [UInt8](try Data(contentsOf: url))
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF {  // fill byte
                index += 1
                continue
            }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }
}

/// Records every progress report, for checks after an ingest.
final class ProgressLog: Sendable {
    private let log = Mutex<[IngestProgress]>([])

    func record(_ progress: IngestProgress) {
        log.withLock { $0.append(progress) }
    }

    /// The reports of one stage, in the order they came.
    func reports(stage: String) -> [IngestProgress] {
        log.withLock { $0.filter { $0.stage == stage } }
    }

    /// The stage of each report, in order.
    var stages: [String] {
        log.withLock { $0.map(\.stage) }
    }
}
