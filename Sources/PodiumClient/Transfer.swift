import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How far an upload or a download is: bytes moved so far and, when known, the total.
public struct TransferProgress: Sendable, Equatable {
    public var bytes: Int64
    /// The whole size; nil when the server did not say (a download without `Content-Length`).
    public var total: Int64?

    public init(bytes: Int64, total: Int64?) {
        self.bytes = bytes
        self.total = total
    }

    /// 0…1, or nil when the total is not known.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(bytes) / Double(total))
    }
}

public typealias ProgressHandler = @Sendable (TransferProgress) -> Void

extension PodiumClient {
    /// Sends `request` with the body from `file` (or `data`), reporting bytes sent as URLSession
    /// hands them to the network (`didSendBodyData`), and keeps the answer in memory.
    func upload(_ request: URLRequest, file: URL?, data: Data?, progress: ProgressHandler?) async throws -> (Data, Int) {
        let delegate = TransferDelegate(progress: progress, destination: nil, direction: .upload)
        let session = URLSession(configuration: Self.cookielessConfiguration(), delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await delegate.run {
            if let file {
                session.uploadTask(with: request, fromFile: file)
            } else {
                session.uploadTask(with: request, from: data ?? Data())
            }
        }
    }

    /// Downloads `request` into `destination` (replaced if there), reporting bytes received; a
    /// refusal leaves no file behind.
    func download(_ request: URLRequest, to destination: URL, progress: ProgressHandler?) async throws {
        let delegate = TransferDelegate(progress: progress, destination: destination, direction: .download)
        let session = URLSession(configuration: Self.cookielessConfiguration(), delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        _ = try await delegate.run { session.dataTask(with: request) }
    }
}

/// One transfer's delegate: collects the answer (in memory, or into the destination file once the
/// status is known to be 2xx), reports progress, and finishes the waiting call.
final class TransferDelegate: NSObject, URLSessionDataDelegate, Sendable {
    enum Direction { case upload, download }

    struct State {
        var continuation: CheckedContinuation<(Data, Int), any Error>?
        var body = Data()
        var status = 0
        var file: FileHandle?
        var received: Int64 = 0
        var expected: Int64?
        /// The answer's header fields, names in lower case.
        var headers: [String: String] = [:]
    }

    private let progress: ProgressHandler?
    private let destination: URL?
    private let direction: Direction
    private let state = Mutex(State())

    init(progress: ProgressHandler?, destination: URL?, direction: Direction) {
        self.progress = progress
        self.destination = destination
        self.direction = direction
    }

    /// The answer's header fields (names in lower case) once it has come.
    var headers: [String: String] { state.withLock { $0.headers } }

    func run(_ makeTask: () -> URLSessionTask) async throws -> (Data, Int) {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.continuation = continuation }
            makeTask().resume()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard direction == .upload else { return }
        progress?(TransferProgress(bytes: totalBytesSent, total: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil))
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        state.withLock { state in
            state.status = status
            for (name, value) in http?.allHeaderFields ?? [:] {
                if let name = name as? String, let value = value as? String { state.headers[name.lowercased()] = value }
            }
            state.expected = response.expectedContentLength > 0 ? response.expectedContentLength : nil
            if direction == .download, (200..<300).contains(status), let destination {
                try? FileManager.default.removeItem(at: destination)
                _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
                state.file = try? FileHandle(forWritingTo: destination)
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let report: TransferProgress? = state.withLock { state in
            if let file = state.file {
                file.write(data)
                state.received += Int64(data.count)
                return TransferProgress(bytes: state.received, total: state.expected)
            }
            state.body.append(data)
            return nil
        }
        if direction == .download, let report { progress?(report) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, body, status, file) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.body, state.status, state.file)
        }
        try? file?.close()
        if let error {
            if let destination, file != nil { try? FileManager.default.removeItem(at: destination) }
            continuation?.resume(
                throwing: PodiumTransportError(
                    .unreachable, "\(task.originalRequest?.url?.absoluteString ?? ""): \(error.localizedDescription)"))
            return
        }
        do {
            try PodiumClient.check(status: status, body: body)
            continuation?.resume(returning: (body, status))
        } catch {
            continuation?.resume(throwing: error)
        }
    }
}
