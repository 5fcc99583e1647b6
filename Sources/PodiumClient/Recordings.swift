import Foundation
import PodiumWire

extension Endpoint {
    public static let startRecording = Endpoint("POST", "/api/v1/sessions/{code}/recordings")
    public static let recordings = Endpoint("GET", "/api/v1/sessions/{code}/recordings")
    public static let putRecordingChunk = Endpoint("PUT", "/api/v1/recordings/{id}/chunks/{n}")
    public static let stopRecording = Endpoint("POST", "/api/v1/recordings/{id}/stop")
    public static let recordingFile = Endpoint("GET", "/api/v1/recordings/{id}/hls/{file}")

    /// Audio takes of the presenter's microphone (replay).
    static let recordingEndpoints: [Endpoint] = [
        .startRecording, .recordings, .putRecordingChunk, .stopRecording, .recordingFile,
    ]
}

extension PodiumClient {
    /// Starts an audio take of session `code` (its host; a room's guest presenter in control with
    /// `asPresenter`). `startedAt` is when the microphone started, on the server's clock.
    /// Refusals: `recording_in_progress` (another take of the session is sending), `bad_audio`.
    public func startRecording(
        session code: String, startedAt: Date, mimeType: String = "audio/webm;codecs=opus", asPresenter: Bool = false
    ) async throws -> RecordingResponse {
        try await call(
            .startRecording, ["code": code], query: ["as": asPresenter ? "presenter" : nil],
            json: RecordingStart(startedAt: startedAt, mimeType: mimeType))
    }

    /// A session's takes, oldest first (its host, or anyone once its replay is shared by link).
    public func recordings(session code: String) async throws -> [RecordingResponse] {
        try await call(.recordings, ["code": code], as: RecordingList.self).recordings
    }

    /// Sends chunk `n` (from 0, in order; at most 1 MiB) of take `id`. Sending one again whose
    /// answer was lost is taken as a retry. Refusals: `chunk_out_of_order` (the error names the
    /// `expected` chunk), `chunk_too_large`, `bad_audio` (chunk 0 is not WebM or Ogg),
    /// `recording_stopped`.
    public func putRecordingChunk(_ data: Data, recording id: String, n: Int) async throws -> RecordingChunkReceipt {
        let request = try request(
            .putRecordingChunk, ["id": id, "n": String(n)], body: data, contentType: "application/octet-stream")
        let (reply, _) = try await perform(request)
        return try Self.decode(RecordingChunkReceipt.self, from: reply, "\(Endpoint.putRecordingChunk)")
    }

    /// Stops take `id`; the server packages it as HLS audio (status `packaging`, then `ready` or `failed`).
    public func stopRecording(_ id: String) async throws -> RecordingResponse {
        try await call(.stopRecording, ["id": id])
    }

    /// A file of a ready take's HLS package: its playlist (`index.m3u8`) or a file it lists.
    public func recordingFile(_ id: String, file: String = "index.m3u8") async throws -> Data {
        try await bytes(.recordingFile, ["id": id, "file": file])
    }
}
