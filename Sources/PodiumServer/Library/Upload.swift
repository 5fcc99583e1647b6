import Foundation
import Hummingbird
import NIOCore
import PodiumMedia

/// Receives an uploaded file: the raw body or the `file` field of a multipart form (a deck
/// upload may carry several images as several `file` fields). Streams to disk with a size limit, so a huge upload costs neither memory nor
/// more disk than the limit.
enum Upload {
    struct Received {
        let file: URL
        let bytes: Int
        /// The file name the browser sent with a multipart upload.
        let filename: String?
    }

    static func receive(_ request: Request, into directory: URL, limit: Int) async throws -> Received {
        let (raw, total) = try await saveBody(request, into: directory, limit: limit)
        let contentType = request.headers[.contentType] ?? ""
        guard contentType.lowercased().hasPrefix("multipart/form-data") else {
            guard total <= limit else {
                try? FileManager.default.removeItem(at: raw)
                throw tooLarge(limit)
            }
            return Received(file: raw, bytes: total, filename: nil)
        }
        defer { try? FileManager.default.removeItem(at: raw) }
        guard let boundary = Multipart.boundary(fromContentType: contentType) else {
            throw APIError.badRequest("The multipart upload has no boundary.")
        }
        let part = directory.appendingPathComponent("upload-\(UUID().uuidString)")
        guard let extracted = try Multipart.extractFile(field: "file", boundary: boundary, from: raw, to: part) else {
            throw APIError.badRequest("The multipart upload has no field named file.")
        }
        guard extracted.bytes <= limit else {
            try? FileManager.default.removeItem(at: part)
            throw tooLarge(limit)
        }
        return Received(file: part, bytes: extracted.bytes, filename: extracted.filename)
    }

    /// Streams the body to a file of its own, refusing it past `limit` and a little multipart framing.
    private static func saveBody(_ request: Request, into directory: URL, limit: Int) async throws -> (URL, Int) {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit + 64 * 1024 {
            throw tooLarge(limit)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let raw = directory.appendingPathComponent("upload-\(UUID().uuidString)")
        var total = 0
        do {
            guard FileManager.default.createFile(atPath: raw.path, contents: nil) else {
                throw APIError(.internalServerError, code: "internal", message: "The server could not store the upload.")
            }
            let handle = try FileHandle(forWritingTo: raw)
            defer { try? handle.close() }
            // Multipart framing adds a little around the file itself.
            let bodyLimit = limit + 64 * 1024
            for try await chunk in request.body {
                total += chunk.readableBytes
                guard total <= bodyLimit else { throw tooLarge(limit) }
                try handle.write(contentsOf: chunk.readableBytesView)
            }
        } catch {
            try? FileManager.default.removeItem(at: raw)
            throw error
        }
        return (raw, total)
    }

    /// Receives a deck upload: the raw body, or every `file` field of a multipart form (several
    /// images make one deck). The limit holds for all the files together.
    static func receiveFiles(_ request: Request, into directory: URL, limit: Int) async throws -> [Received] {
        let contentType = request.headers[.contentType] ?? ""
        guard contentType.lowercased().hasPrefix("multipart/form-data") else {
            return [try await receive(request, into: directory, limit: limit)]
        }
        // The whole body first (under the limit), then its parts.
        let (raw, _) = try await saveBody(request, into: directory, limit: limit)
        defer { try? FileManager.default.removeItem(at: raw) }
        guard let boundary = Multipart.boundary(fromContentType: contentType) else {
            throw APIError.badRequest("The multipart upload has no boundary.")
        }
        let parts = try Multipart.extractFiles(field: "file", boundary: boundary, from: raw, into: directory)
        guard !parts.isEmpty else { throw APIError.badRequest("The multipart upload has no field named file.") }
        if parts.reduce(0, { $0 + $1.bytes }) > limit {
            for part in parts { try? FileManager.default.removeItem(at: part.file) }
            throw tooLarge(limit)
        }
        return parts
    }

    /// What a deck upload is, by its bytes: a PDF, an Office or Keynote document, an image, a
    /// ZIP of images. Anything else is refused with `415 unsupported_type`.
    static func deckFormat(_ received: Received) throws -> DeckFormat {
        guard received.bytes > 0 else {
            throw APIError(.badRequest, code: "empty", message: "The file is empty.")
        }
        guard let format = DeckFormat.sniff(received.file) else {
            throw APIError(
                .unsupportedMediaType, code: IngestError.unsupportedType.code, message: IngestError.unsupportedType.message)
        }
        return format
    }

    static func tooLarge(_ limit: Int) -> APIError {
        APIError(
            .contentTooLarge, code: "too_large",
            message: "The file is larger than the \(limit / (1024 * 1024)) MB this server accepts.")
    }
}

/// Just enough multipart/form-data to take one file field out of a saved body.
enum Multipart {
    static func boundary(fromContentType contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// Copies the body of every part named `field` into a file of its own in `directory`, in the
    /// order sent.
    static func extractFiles(field: String, boundary: String, from source: URL, into directory: URL) throws
        -> [Upload.Received]
    {
        let body = try Data(contentsOf: source, options: .alwaysMapped)
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var cursor = body.startIndex
        var files: [Upload.Received] = []
        do {
            while let start = body.range(of: delimiter, in: cursor..<body.endIndex) {
                guard let headersEnd = body.range(of: headerEnd, in: start.upperBound..<body.endIndex) else { break }
                let headers = String(decoding: body[start.upperBound..<headersEnd.lowerBound], as: UTF8.self)
                let contentStart = headersEnd.upperBound
                guard let next = body.range(of: Data("\r\n--\(boundary)".utf8), in: contentStart..<body.endIndex) else {
                    break
                }
                if disposition(headers, has: "name", equalTo: field) {
                    let destination = directory.appendingPathComponent("upload-\(UUID().uuidString)")
                    try body[contentStart..<next.lowerBound].write(to: destination)
                    files.append(
                        Upload.Received(
                            file: destination, bytes: next.lowerBound - contentStart, filename: parameter("filename", in: headers)
                        ))
                }
                cursor = next.lowerBound + 2
            }
        } catch {
            for file in files { try? FileManager.default.removeItem(at: file.file) }
            throw error
        }
        return files
    }

    /// Copies the body of the part named `field` to `destination`.
    static func extractFile(field: String, boundary: String, from source: URL, to destination: URL) throws -> (
        bytes: Int, filename: String?
    )? {
        // Memory-mapped: the kernel pages the body in as it is scanned.
        let body = try Data(contentsOf: source, options: .alwaysMapped)
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var cursor = body.startIndex
        while let start = body.range(of: delimiter, in: cursor..<body.endIndex) {
            guard let headersEnd = body.range(of: headerEnd, in: start.upperBound..<body.endIndex) else { return nil }
            let headers = String(decoding: body[start.upperBound..<headersEnd.lowerBound], as: UTF8.self)
            let contentStart = headersEnd.upperBound
            guard let next = body.range(of: Data("\r\n--\(boundary)".utf8), in: contentStart..<body.endIndex) else { return nil }
            if disposition(headers, has: "name", equalTo: field) {
                try body[contentStart..<next.lowerBound].write(to: destination)
                return (next.lowerBound - contentStart, parameter("filename", in: headers))
            }
            cursor = next.lowerBound + 2
        }
        return nil
    }

    private static func disposition(_ headers: String, has name: String, equalTo value: String) -> Bool {
        parameter(name, in: headers) == value
    }

    private static func parameter(_ name: String, in headers: String) -> String? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            for piece in line.split(separator: ";").dropFirst() {
                let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == name {
                    return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
        }
        return nil
    }
}
