import Foundation

/// Reads the variants of an HLS master playlist (`#EXT-X-STREAM-INF` and the URI after it).
enum MasterPlaylist {
    /// The master playlist without its audio-only variants when it has video ones. FFmpeg lists
    /// the audio group's playlist as a variant of its own too; the audio is already in every
    /// video variant's group, and Video.js's HLS engine, given such a variant beside an audio
    /// group with the same playlist, never loads the audio and never starts playing.
    static func withoutAudioOnlyVariants(_ text: String) -> String {
        let lines = text.components(separatedBy: "\n")
        let isStream = { (line: String) in line.hasPrefix("#EXT-X-STREAM-INF:") }
        let isAudioOnly = { (line: String) in
            let codecs = attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)))["CODECS"] ?? ""
            return attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)))["RESOLUTION"] == nil
                && !codecs.contains("avc1") && !codecs.contains("hvc1") && !codecs.contains("vp09") && !codecs.contains("av01")
        }
        guard lines.contains(where: { isStream($0) && !isAudioOnly($0) }) else { return text }
        var kept: [String] = []
        var skipURI = false
        for line in lines {
            if isStream(line), isAudioOnly(line) {
                skipURI = true
            } else if skipURI, !line.isEmpty, !line.hasPrefix("#") {
                skipURI = false
            } else {
                kept.append(line)
            }
        }
        return kept.joined(separator: "\n")
    }

    /// The master playlist with `codecs` on each video variant that names none.
    static func withCodecs(_ text: String, _ codecs: String) -> String {
        text.components(separatedBy: "\n").map { line in
            guard line.hasPrefix("#EXT-X-STREAM-INF:"),
                attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)))["CODECS"] == nil
            else { return line }
            return line + ",CODECS=\"\(codecs)\""
        }.joined(separator: "\n")
    }

    /// The master playlist with one more video variant, `variant` at `uri`, after the others,
    /// in the others' audio group (the first video variant's `AUDIO`).
    static func withVariant(_ text: String, _ variant: PackagedVideo.Variant, uri: String) -> String {
        let lines = text.components(separatedBy: "\n")
        let audio = lines.lazy.filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }
            .compactMap { attributes(String($0.dropFirst("#EXT-X-STREAM-INF:".count)))["AUDIO"] }.first
        var line = "#EXT-X-STREAM-INF:BANDWIDTH=\(variant.bandwidth)"
        if let width = variant.width, let height = variant.height { line += ",RESOLUTION=\(width)x\(height)" }
        if !variant.codecs.isEmpty { line += ",CODECS=\"\(variant.codecs)\"" }
        if let audio { line += ",AUDIO=\"\(audio)\"" }
        var kept = lines
        while kept.last?.isEmpty == true { kept.removeLast() }
        return (kept + [line, uri, ""]).joined(separator: "\n")
    }

    static func variants(_ text: String) -> [PackagedVideo.Variant] {
        var variants: [PackagedVideo.Variant] = []
        var pending: [String: String]?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)))
            } else if !line.isEmpty, !line.hasPrefix("#"), let attributes = pending {
                let size = attributes["RESOLUTION"]?.split(separator: "x").compactMap { Int($0) }
                variants.append(
                    PackagedVideo.Variant(
                        playlist: line, bandwidth: Int(attributes["BANDWIDTH"] ?? "") ?? 0,
                        width: size?.count == 2 ? size?[0] : nil, height: size?.count == 2 ? size?[1] : nil,
                        codecs: attributes["CODECS"] ?? ""))
                pending = nil
            }
        }
        return variants
    }

    /// `A=1,B="x,y"` → ["A": "1", "B": "x,y"].
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var key = ""
        var value = ""
        var inKey = true
        var quoted = false
        for character in text {
            if inKey {
                if character == "=" { inKey = false } else { key.append(character) }
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                result[key.trimmingCharacters(in: .whitespaces)] = value
                key = ""
                value = ""
                inKey = true
            } else {
                value.append(character)
            }
        }
        if !key.isEmpty { result[key.trimmingCharacters(in: .whitespaces)] = value }
        return result
    }
}
