import Foundation

/// Why a PDF could not be ingested: a stable `code` for programs and a `message` for people.
///
/// Codes: `not_pdf`, `empty`, `too_large`, `encrypted`, `corrupt`, `too_many_pages`, `timeout`,
/// `tool_missing`. Messages say what went wrong and what the uploader can do about it.
public struct IngestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable code.
    public var code: String
    /// A sentence or two for the person who uploaded the file.
    public var message: String

    /// Creates an error; prefer the static constructors, which keep codes and wording consistent.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// The file does not start like a PDF.
    public static let notPDF = IngestError(
        code: "not_pdf", message: "This file is not a PDF. Export or save your slides as PDF and upload that file.")

    /// The file has no bytes.
    public static let empty = IngestError(
        code: "empty", message: "This file is empty. Choose the PDF again and upload it.")

    /// The PDF opens but has no pages.
    public static let noPages = IngestError(code: "empty", message: "This PDF has no pages.")

    /// The PDF needs a password to open.
    public static let encrypted = IngestError(
        code: "encrypted",
        message: "This file is encrypted with a password. Remove the password and upload it again.")

    /// The file is bigger than the server accepts.
    public static func tooLarge(limit: Int) -> IngestError {
        IngestError(
            code: "too_large",
            message: "This file is larger than \(formatBytes(limit)), the most the server accepts. "
                + "Compress the images in it or split it into smaller decks.")
    }

    /// The PDF is damaged or could not be read.
    /// - Parameter detail: a short, lower-case phrase saying what failed, e.g. "its page list could not be read".
    public static func corrupt(detail: String) -> IngestError {
        IngestError(
            code: "corrupt",
            message: "This PDF could not be read (\(detail)). It may be damaged: "
                + "export or save it again and upload the new file.")
    }

    /// The PDF has more pages than the server accepts.
    public static func tooManyPages(limit: Int) -> IngestError {
        IngestError(
            code: "too_many_pages",
            message: "This PDF has more than \(limit) pages, the most the server accepts. Split it into smaller decks.")
    }

    /// A tool ran past its deadline, usually because a page is extremely complex.
    public static func timeout(tool: String) -> IngestError {
        IngestError(
            code: "timeout",
            message: "Processing this PDF took too long (\(tool) was stopped). "
                + "Simplify the heaviest pages or split the deck, then upload it again.")
    }

    /// The whole deck ran past its deadline.
    public static func deckTimeout(_ limit: Duration) -> IngestError {
        let seconds = limit.components.seconds
        let allowed = seconds >= 120 ? "\(seconds / 60) minutes" : seconds > 1 ? "\(seconds) seconds" : "1 second"
        return IngestError(
            code: "timeout",
            message: "Processing this PDF took longer than the \(allowed) the server allows. "
                + "Split the deck or simplify its heaviest pages, then upload it again.")
    }

    /// A tool the server needs is not installed: an administrator has to fix this, not the uploader.
    public static func toolMissing(tool: String) -> IngestError {
        IngestError(
            code: "tool_missing",
            message: "The server cannot process PDFs because the program \"\(tool)\" is not installed. "
                + "Ask the administrator to install \(package(of: tool)).")
    }

    /// The Debian package that provides a tool, so the message names something installable.
    private static func package(of tool: String) -> String {
        let name = tool.split(separator: "/").last.map(String.init) ?? tool
        switch name {
        case "pdfinfo", "pdftoppm", "pdftotext", "pdftocairo": return "poppler-utils"
        case "prlimit": return "util-linux"
        default: return name
        }
    }

    /// Formats a byte count the way people read file sizes (binary units, as the limits are set).
    private static func formatBytes(_ bytes: Int) -> String {
        let mebibyte = 1024 * 1024
        if bytes >= mebibyte, bytes % mebibyte == 0 { return "\(bytes / mebibyte) MB" }
        if bytes >= mebibyte { return String(format: "%.1f MB", Double(bytes) / Double(mebibyte)) }
        if bytes >= 1024 { return "\(bytes / 1024) KB" }
        return "\(bytes) bytes"
    }
}
