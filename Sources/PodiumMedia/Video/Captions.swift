import Foundation

/// One caption cue: shown from `start` to `end` (seconds from the clip's start).
public struct CaptionCue: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double
    /// The cue's text in WebVTT's basic markup (`<b>`, `<i>`, `<u>`; `&amp;`, `&lt;`, `&gt;`).
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// Why a caption file was refused: a stable `code` for programs, a `message` for people, and the
/// number of the cue at fault (1-based) when one is, so a client can say it in its own language.
public struct CaptionError: Error, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    public let cue: Int?

    public init(code: String, message: String, cue: Int? = nil) {
        self.code = code
        self.message = message
        self.cue = cue
    }

    public var description: String { "\(code): \(message)" }
}

/// Caption tracks in WebVTT or SRT, read into cues and written back as WebVTT (what HLS players
/// load). Pure Swift, no tool: an SRT file is converted by reading its cues (`00:00:01,500`
/// times) and writing them as WebVTT. Cue text keeps WebVTT's basic markup (bold, italic,
/// underline); the rest of caption markup (SRT's `<font>`, WebVTT's voices and classes) and SSA
/// override codes (`{\an8}`) are stripped, HTML refused, and a bare `&` or `<` is escaped.
public enum Captions {
    /// The cues of a WebVTT file (it starts `WEBVTT`) or an SRT file. Throws `caption_empty`
    /// (no cue), `caption_time` (a cue time that does not parse), `caption_order` (a cue that ends
    /// before it starts), `caption_cue` (a block that is not a cue) or `caption_markup` (a tag that
    /// is no caption markup, see ``checkMarkup(_:cue:)``).
    public static func parse(_ text: String) throws(CaptionError) -> [CaptionCue] {
        var text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let blocks = text.components(separatedBy: "\n")
            .reduce(into: [[String]]([[]])) { blocks, line in
                if line.trimmingCharacters(in: .whitespaces).isEmpty {
                    if !(blocks.last ?? []).isEmpty { blocks.append([]) }
                } else {
                    blocks[blocks.count - 1].append(line)
                }
            }
            .filter { !$0.isEmpty }
        var cues: [CaptionCue] = []
        let isWebVTT = blocks.first?.first.map { $0 == "WEBVTT" || $0.hasPrefix("WEBVTT ") || $0.hasPrefix("WEBVTT\t") } ?? false
        for (index, block) in blocks.enumerated() {
            if isWebVTT, index == 0 { continue }  // the header
            if isWebVTT, let first = block.first,
                ["NOTE", "STYLE", "REGION"].contains(where: { first == $0 || first.hasPrefix($0 + " ") })
            {
                continue
            }
            guard let timing = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else {
                throw CaptionError(
                    code: "caption_cue", message: "Cue \(cues.count + 1) has no timing line (start --> end).",
                    cue: cues.count + 1)
            }
            let parts = block[timing].components(separatedBy: "-->")
            let startText = parts[0].trimmingCharacters(in: .whitespaces)
            let endText = parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
            guard let start = time(startText), let end = time(endText) else {
                throw CaptionError(
                    code: "caption_time",
                    message:
                        "Cue \(cues.count + 1) has a time that does not parse: \(block[timing].trimmingCharacters(in: .whitespaces))",
                    cue: cues.count + 1)
            }
            guard end > start else {
                throw CaptionError(
                    code: "caption_order", message: "Cue \(cues.count + 1) ends (\(endText)) before it starts (\(startText)).",
                    cue: cues.count + 1)
            }
            let body = block[(timing + 1)...].joined(separator: "\n")
            try checkMarkup(body, cue: cues.count + 1)
            cues.append(CaptionCue(start: start, end: end, text: clean(body)))
        }
        guard !cues.isEmpty else { throw CaptionError(code: "caption_empty", message: "The file has no caption cues.") }
        return cues
    }

    /// `hh:mm:ss.ttt`, `mm:ss.ttt` (WebVTT) or `hh:mm:ss,ttt` (SRT) in seconds; nil when it does not parse.
    static func time(_ text: String) -> Double? {
        let normalised = text.replacingOccurrences(of: ",", with: ".")
        let fields = normalised.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        let secondsParts = fields.last!.split(separator: ".", omittingEmptySubsequences: false)
        guard secondsParts.count == 2, secondsParts[0].count == 2, (1...3).contains(secondsParts[1].count),
            let seconds = Int(secondsParts[0]), let fraction = Int(secondsParts[1]), seconds < 60,
            secondsParts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        let numbers = fields.dropLast().map { field in
            field.allSatisfy({ $0.isASCII && $0.isNumber }) && !field.isEmpty ? Int(field) : nil
        }
        guard numbers.allSatisfy({ $0 != nil }) else { return nil }
        let minutes = numbers.last!!
        let hours = numbers.count == 2 ? numbers[0]! : 0
        guard minutes < 60, fields.count == 3 || fields[0].count == 2 else { return nil }
        let millis = Double(fraction) * pow(10, Double(3 - secondsParts[1].count))
        return Double(hours * 3600 + minutes * 60 + seconds) + millis / 1000
    }

    /// A cue time as WebVTT writes it: `hh:mm:ss.ttt`.
    public static func timestamp(_ seconds: Double) -> String {
        let millis = Int((max(0, seconds) * 1000).rounded())
        let hours = millis / 3_600_000
        let minutes = millis / 60_000 % 60
        let secs = millis / 1000 % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let rest = millis % 1000
        let three = rest < 10 ? "00\(rest)" : rest < 100 ? "0\(rest)" : "\(rest)"
        return "\(two(hours)):\(two(minutes)):\(two(secs)).\(three)"
    }

    /// The cues as a WebVTT file.
    public static func webVTT(_ cues: [CaptionCue]) -> String {
        var lines = ["WEBVTT", ""]
        for (index, cue) in cues.enumerated() {
            lines.append("\(index + 1)")
            lines.append("\(timestamp(cue.start)) --> \(timestamp(cue.end))")
            lines.append(cue.text.isEmpty ? " " : cue.text)
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    private static let keptTags: Set<String> = ["b", "/b", "i", "/i", "u", "/u"]

    /// What captions are written with: WebVTT's cue markup (bold, italic, underline, classes,
    /// voices, languages, ruby) and SRT's formatting (`<font>`, `<s>`, and `<br>` as a line break).
    /// `clean` keeps the first three, makes `<br>` a new line and strips the rest, which only style
    /// the text.
    private static let captionTags: Set<String> = ["b", "i", "u", "s", "c", "v", "lang", "ruby", "rt", "font", "br", "br/"]

    /// Refuses (`caption_markup`, naming the cue and the tag) a cue whose text carries a tag that
    /// is no caption markup: HTML such as `<script>`, `<img>` or `<a>` pasted into a file, whose
    /// text would otherwise be lost without a word. A `<` that opens no tag (`1 < 2`) is text.
    public static func checkMarkup(_ text: String, cue: Int) throws(CaptionError) {
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            let after = rest[rest.index(after: open)...]
            guard let next = after.first, next.isLetter || next == "/", let close = after.firstIndex(of: ">") else {
                rest = after
                continue
            }
            let tag = after[..<close].drop { $0 == "/" }.lowercased()
            let name = tag.split(whereSeparator: { $0 == " " || $0 == "." || $0 == "\t" }).first.map(String.init) ?? ""
            if !captionTags.contains(name) {
                let shown = String(after[..<close].prefix(40))
                throw CaptionError(
                    code: "caption_markup",
                    message:
                        "Cue \(cue) has markup captions cannot carry: <\(shown)>. Captions keep bold, italic and underline; take the tag out.",
                    cue: cue)
            }
            rest = after[after.index(after: close)...]
        }
    }

    /// A cue's text with only WebVTT's basic markup: other tags and SSA codes stripped, bare `&`
    /// and `<` escaped, no blank lines and no `-->` (which would end the cue).
    public static func clean(_ text: String) -> String {
        var result = ""
        var rest = Substring(text.replacingOccurrences(of: "\r", with: ""))
        while let character = rest.first {
            if character == "<", let next = rest.dropFirst().first, next.isLetter || next == "/",
                let close = rest.firstIndex(of: ">")
            {
                let tag = rest[rest.index(after: rest.startIndex)..<close].lowercased()
                let name = tag.split(whereSeparator: { $0 == " " || $0 == "." }).first.map(String.init) ?? ""
                if keptTags.contains(name) {
                    result += "<\(name)>"
                } else if name == "br" || name == "br/" {
                    result += "\n"
                }
                rest = rest[rest.index(after: close)...]
            } else if character == "{", rest.dropFirst().first == "\\", let close = rest.firstIndex(of: "}") {
                rest = rest[rest.index(after: close)...]
            } else if character == "<" {
                result += "&lt;"
                rest = rest.dropFirst()
            } else if character == ">" {
                result += "&gt;"
                rest = rest.dropFirst()
            } else if character == "&" {
                let entity = rest.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "#" }
                if !entity.isEmpty, rest.dropFirst(entity.count + 1).first == ";" {
                    result += "&" + entity + ";"
                    rest = rest.dropFirst(entity.count + 2)
                } else {
                    result += "&amp;"
                    rest = rest.dropFirst()
                }
            } else {
                result.append(character)
                rest = rest.dropFirst()
            }
        }
        return result.components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
            .replacingOccurrences(of: "-->", with: "->")
    }

    /// Whether `tag` is a well-formed BCP 47 language tag as far as a caption track needs it:
    /// letters, digits and hyphens, a 2–3 letter primary language (`en`, `de-CH`, `zh-Hans`).
    public static func isLanguageTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }),
            tag.count <= 35
        else { return false }
        return subtags.dropFirst().allSatisfy {
            (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}

extension Captions {
    /// A caption track as a clip's master playlist lists it: a subtitle rendition whose media
    /// playlist (`uri`, relative to the master) holds one WebVTT segment.
    public struct Rendition: Sendable, Equatable {
        public var language: String
        public var name: String
        public var uri: String

        public init(language: String, name: String, uri: String) {
            self.language = language
            self.name = name
            self.uri = uri
        }
    }

    /// The HLS group every variant names for its subtitles.
    public static let groupId = "subs"

    /// `master` with the subtitle renditions listed (`#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",…`
    /// before the first variant) and every variant naming the group (`SUBTITLES="subs"`);
    /// unchanged without renditions. None is the default: players show captions when asked.
    public static func masterPlaylist(_ master: String, subtitles: [Rendition]) -> String {
        guard !subtitles.isEmpty else { return master }
        let quoted = { (text: String) in
            text.replacingOccurrences(of: "\"", with: "'").replacingOccurrences(of: "\n", with: " ")
        }
        let media = subtitles.map { track in
            "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"\(groupId)\",NAME=\"\(quoted(track.name))\","
                + "LANGUAGE=\"\(quoted(track.language))\",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI=\"\(quoted(track.uri))\""
        }
        var lines: [String] = []
        var listed = false
        for line in master.components(separatedBy: "\n") {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                if !listed {
                    lines += media
                    listed = true
                }
                lines.append(line.contains("SUBTITLES=") ? line : line + ",SUBTITLES=\"\(groupId)\"")
            } else {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A subtitle media playlist over one WebVTT segment (`uri`) that lasts the whole clip.
    public static func mediaPlaylist(duration: Double, uri: String) -> String {
        let seconds = max(duration, 0.001)
        return [
            "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(Int(seconds.rounded(.up)))",
            "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:\(String(format: "%.3f", seconds)),", uri, "#EXT-X-ENDLIST", "",
        ].joined(separator: "\n")
    }
}
