import Foundation
import PodiumWire

extension Endpoint {
    /// The resumable upload protocol (tus 1.0.0 core, creation, expiration, termination): what the
    /// server supports and the largest upload it takes.
    public static let resumableUploadOptions = Endpoint("OPTIONS", "/api/v1/uploads")
    /// Creates an upload (`Upload-Length`, `Upload-Metadata`); 201 with its `Location`.
    public static let createResumableUpload = Endpoint("POST", "/api/v1/uploads")
    /// How far an upload is (`Upload-Offset`).
    public static let resumableUploadHead = Endpoint("HEAD", "/api/v1/uploads/{id}")
    /// An upload as JSON (`ResumableUpload`), with the result once it finished.
    public static let resumableUpload = Endpoint("GET", "/api/v1/uploads/{id}")
    /// The next bytes of an upload, from `Upload-Offset`.
    public static let patchResumableUpload = Endpoint("PATCH", "/api/v1/uploads/{id}")
    /// Abandons an upload; its partial bytes are removed.
    public static let deleteResumableUpload = Endpoint("DELETE", "/api/v1/uploads/{id}")
}
// MARK: - Where an upload goes

/// What a resumable upload becomes, with the metadata its creation sends: the target of
/// `Upload-Metadata` and the fields the target's one-shot route takes.
public enum UploadDestination: Sendable, Hashable {
    /// A deck of the signed-in user's library (as ``PodiumClient/uploadDeck(file:title:folderId:progress:resume:)``).
    case deck(title: String?, folderId: String?)
    /// A clip of the signed-in user's library (as ``PodiumClient/uploadVideo(file:title:folderId:progress:resume:)``).
    case video(title: String?, folderId: String?)
    /// A deck brought into a room (`asPresenter`: a moderator bringing it as a presenter, the
    /// room routes' `?as=presenter`).
    case roomDeck(code: String, asPresenter: Bool)
    /// A clip brought into a room.
    case roomVideo(code: String, title: String?, asPresenter: Bool)

    /// The protocol's `target`.
    public var target: ResumableUploadTarget {
        switch self {
        case .deck: .deck
        case .video: .video
        case .roomDeck: .roomDeck
        case .roomVideo: .roomVideo
        }
    }

    /// The metadata fields besides `filename`, in a fixed order (nil fields left out).
    var fields: [(String, String)] {
        var fields = [("target", target.rawValue)]
        switch self {
        case .deck(let title, let folderId), .video(let title, let folderId):
            if let title { fields.append(("title", title)) }
            if let folderId { fields.append(("folderId", folderId)) }
        case .roomDeck(let code, let asPresenter):
            fields.append(("session", code))
            if asPresenter { fields.append(("as", "presenter")) }
        case .roomVideo(let code, let title, let asPresenter):
            fields.append(("session", code))
            if let title { fields.append(("title", title)) }
            if asPresenter { fields.append(("as", "presenter")) }
        }
        return fields
    }

    /// `Upload-Metadata` for a file called `filename`: `key base64,key base64,…` (tus 1.0.0).
    public func uploadMetadata(filename: String?) -> String {
        var fields = fields
        if let filename { fields.append(("filename", filename)) }
        return ResumableUploadHeaders.metadata(fields)
    }
}

/// The header fields of the resumable upload protocol, written and read.
public enum ResumableUploadHeaders {
    public static let version = "1.0.0"

    /// tus `Upload-Metadata`: each pair as `key base64(value)`, joined by commas.
    public static func metadata(_ fields: [(String, String)]) -> String {
        fields.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")
    }

    /// Reads `Upload-Metadata` back (a key without a value reads as ""); nil when malformed.
    public static func parseMetadata(_ header: String) -> [String: String]? {
        var result: [String: String] = [:]
        for pair in header.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard let key = parts.first, parts.count <= 2 else { return nil }
            if parts.count == 2 {
                guard let data = Data(base64Encoded: String(parts[1])), let value = String(data: data, encoding: .utf8) else {
                    return nil
                }
                result[String(key)] = value
            } else {
                result[String(key)] = ""
            }
        }
        return result
    }

    /// `Upload-Offset` / `Upload-Length`: a non-negative integer, nil otherwise.
    public static func byteCount(_ value: String?) -> Int64? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty,
            value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber), let number = Int64(value)
        else { return nil }
        return number
    }

    /// `Upload-Expires`: an HTTP date (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`).
    public static func date(_ value: String?) -> Date? {
        guard let value else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value.trimmingCharacters(in: .whitespaces))
    }
}
