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
