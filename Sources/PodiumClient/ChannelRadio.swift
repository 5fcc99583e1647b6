import Foundation
import PodiumWire
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Endpoint {
    public static let channelRadioStream = Endpoint("GET", "/api/v1/channel/radios/{id}/stream")
    public static let channelRadioEvents = Endpoint("GET", "/api/v1/channel/radios/{id}/events")
    public static let channelRadioTracks = Endpoint("GET", "/api/v1/channel/radios/{id}/tracks")
    public static let uploadChannelRadioTrack = Endpoint("POST", "/api/v1/channel/radios/{id}/tracks")
    public static let orderChannelRadioTracks = Endpoint("PUT", "/api/v1/channel/radios/{id}/tracks/order")
    public static let updateChannelRadioTrack = Endpoint("PATCH", "/api/v1/channel/radios/{id}/tracks/{trackId}")
    public static let deleteChannelRadioTrack = Endpoint("DELETE", "/api/v1/channel/radios/{id}/tracks/{trackId}")
}

// ChannelRadioStation (with its Track and Playing), ChannelRadioStream, ChannelRadioTrack and
// ChannelRadioNowPlaying are PodiumWire's (re-exported).

/// One event of a station's stream of events.
public enum ChannelRadioEvent: Sendable, Equatable {
    /// A track started (or the one playing when the stream opened); nil: nothing is scheduled.
    case nowPlaying(ChannelRadioNowPlaying?)
    /// The station went off the air; the stream ends.
    case offAir
    /// An event this SDK does not know (a newer server), its data as it came.
    case other(event: String, data: JSONValue)

    init(event: String, data: JSONValue) throws {
        switch event {
        case "nowplaying": self = .nowPlaying(data == .null ? nil : try data.decode(as: ChannelRadioNowPlaying.self))
        case "offair": self = .offAir
        default: self = .other(event: event, data: data)
        }
    }
}

extension PodiumClient {
    /// Where a station is now (its signed playlist URL and the track playing).
    public func channelRadioStream(id: String) async throws -> ChannelRadioStream {
        try await call(.channelRadioStream, ["id": id])
    }

    /// The station's "now playing" Server-Sent Events, one ``ChannelRadioEvent`` at a time; ends
    /// when the station goes off air or the connection drops.
    public func channelRadioEvents(id: String) -> AsyncThrowingStream<ChannelRadioEvent, any Error> {
        let raw = channelRadioEventData(id: id)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await (event, data) in raw { continuation.yield(try ChannelRadioEvent(event: event, data: data)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The events as they come, `(event, data)` with the data as ``JSONValue`` (open: the data's
    /// shape depends on the event).
    public func channelRadioEventData(id: String) -> AsyncThrowingStream<(event: String, data: JSONValue), any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: (event: String, data: JSONValue).self)
        do {
            let request = try request(.channelRadioEvents, ["id": id])
            let delegate = EventStreamDelegate(continuation)
            let session = URLSession(configuration: Self.cookielessConfiguration(), delegate: delegate, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        } catch {
            continuation.finish(throwing: error)
        }
        return stream
    }

    public func channelRadioTracks(id: String) async throws -> [ChannelRadioTrack] {
        try await call(.channelRadioTracks, ["id": id])
    }

    /// Uploads a track (judged by content); packaged by a `radio-track` job.
    public func uploadChannelRadioTrack(
        radioId: String, file: URL, title: String? = nil, artist: String? = nil, progress: ProgressHandler? = nil
    ) async throws -> Uploaded<ChannelRadioTrack> {
        try await uploadJSON(
            .uploadChannelRadioTrack, ["id": radioId], query: ["title": title, "artist": artist], file: file,
            progress: progress
        ).decode(as: Uploaded<ChannelRadioTrack>.self)
    }

    public func reorderChannelRadioTracks(radioId: String, ids: [String]) async throws {
        _ = try await callJSON(.orderChannelRadioTracks, ["id": radioId], body: ["ids": .array(ids.map { .string($0) })])
    }

    /// Changes a track's title, artist or website (nil leaves a field alone; `.set(nil)` clears the website).
    public func updateChannelRadioTrack(
        radioId: String, trackId: String, title: String? = nil, artist: String? = nil, website: Change<String> = .keep
    ) async throws -> ChannelRadioTrack {
        var patch = Patch()
        try patch.add("title", title)
        try patch.add("artist", artist)
        try patch.add("website", website)
        return try await call(.updateChannelRadioTrack, ["id": radioId, "trackId": trackId], json: patch)
    }

    public func deleteChannelRadioTrack(radioId: String, trackId: String) async throws {
        _ = try await callJSON(.deleteChannelRadioTrack, ["id": radioId, "trackId": trackId])
    }
}

/// Splits a Server-Sent Events body into `(event, data)` pairs as it arrives.
final class EventStreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias Continuation = AsyncThrowingStream<(event: String, data: JSONValue), any Error>.Continuation
    private let continuation: Continuation
    private let state = Mutex((buffer: Data(), event: "message", status: 0, body: Data()))

    init(_ continuation: Continuation) { self.continuation = continuation }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.status = (response as? HTTPURLResponse)?.statusCode ?? 0 }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events: [(String, JSONValue)] = state.withLock { state in
            guard (200..<300).contains(state.status) else {
                state.body.append(data)
                return []
            }
            state.buffer.append(data)
            var events: [(String, JSONValue)] = []
            while let newline = state.buffer.firstIndex(of: 10) {
                let line = String(decoding: state.buffer[state.buffer.startIndex..<newline], as: UTF8.self)
                    .trimmingCharacters(in: .init(charactersIn: "\r"))
                state.buffer = Data(state.buffer[state.buffer.index(after: newline)...])
                if line.hasPrefix("event:") {
                    state.event = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
                } else if line.hasPrefix("data:") {
                    let text = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                    let value = (try? PodiumClient.makeDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
                    events.append((state.event, value))
                    state.event = "message"
                }
            }
            return events
        }
        for (event, data) in events { continuation.yield((event, data)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (status, body) = state.withLock { ($0.status, $0.body) }
        do {
            try PodiumClient.check(status: status, body: body)
            if let error { throw PodiumTransportError(.unreachable, error.localizedDescription) }
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
        session.finishTasksAndInvalidate()
    }
}
