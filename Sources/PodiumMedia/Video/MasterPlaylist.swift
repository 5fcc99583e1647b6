import Foundation

/// Reads the variants of an HLS master playlist (`#EXT-X-STREAM-INF` and the URI after it).
enum MasterPlaylist {
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
