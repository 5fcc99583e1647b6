import Foundation

/// The texts of the messages the server sends, in every language of the pages: the `mail`
/// catalogue of the web root (`locales/<language>/mail.json`), the same files and the same form
/// as the pages' catalogues (`{name}` placeholders; a message that depends on a count is an
/// object of CLDR plural categories), so a translator finds the mail beside the pages and the
/// catalogue completeness test checks it with them. Read once at start.
struct MailCatalog: Sendable {
    /// Language code -> key -> message.
    let messages: [String: [String: Message]]
    /// The language of a message whose reader's language is not known (`--mail-language`).
    let defaultLanguage: String

    enum Message: Sendable, Equatable {
        case text(String)
        /// Plural category (`one`, `few`, …) -> text.
        case plural([String: String])
    }

    /// English, the source language: what a missing message or language falls back to.
    static let source = "en"

    init(webRoot: URL, defaultLanguage: String) {
        let locales = webRoot.appendingPathComponent("locales")
        var messages: [String: [String: Message]] = [:]
        let directories = (try? FileManager.default.contentsOfDirectory(atPath: locales.path)) ?? []
        for language in directories {
            let file = locales.appendingPathComponent(language).appendingPathComponent("mail.json")
            guard let data = try? Data(contentsOf: file),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            messages[language] = object.compactMapValues { value in
                if let text = value as? String { return .text(text) }
                if let forms = value as? [String: String] { return .plural(forms) }
                return nil
            }
        }
        self.init(messages: messages, defaultLanguage: defaultLanguage)
    }

    init(messages: [String: [String: Message]], defaultLanguage: String) {
        self.messages = messages
        let languages = Array(messages.keys)
        self.defaultLanguage = Self.match(defaultLanguage, in: languages) ?? Self.source
    }

    /// The languages it has.
    var languages: [String] { Array(messages.keys) }

    /// The catalogue's language for `requested` (a page's `de`, a browser's `de-AT`, `zh-CN`), or
    /// the default language when there is none.
    func language(_ requested: String?) -> String {
        requested.flatMap { Self.match($0, in: Array(messages.keys)) } ?? defaultLanguage
    }

    /// The catalogue's code for `requested`, or nil: the code itself (any case), else the
    /// language without its region (`de-AT` -> `de`); Chinese is written in simplified
    /// characters (the only Chinese catalogue).
    static func match(_ requested: String, in languages: [String]) -> String? {
        let tag = requested.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-").lowercased()
        guard !tag.isEmpty else { return nil }
        if let exact = languages.first(where: { $0.lowercased() == tag }) { return exact }
        let base = tag.split(separator: "-").first.map(String.init) ?? tag
        if let same = languages.first(where: { $0.lowercased() == base }) { return same }
        return languages.first { $0.lowercased().hasPrefix(base + "-") }
    }

    /// The message `key` in `language` with `values` put in its `{placeholders}` (`count`
    /// chooses a plural form); English when the language lacks it, the key itself when English
    /// does too (never a blank line in a message).
    func text(_ key: String, _ language: String, _ values: [String: String] = [:], count: Int? = nil) -> String {
        let found = messages[language]?[key] ?? messages[Self.source]?[key]
        var text: String
        switch found {
        case .text(let plain): text = plain
        case .plural(let forms):
            let category = Self.pluralCategory(count ?? 0, language: language)
            text = forms[category] ?? forms["other"] ?? key
        case nil: text = key
        }
        var values = values
        if let count { values["count"] = String(count) }
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    /// CLDR's plural category of a whole number in the catalogues' languages (what the pages'
    /// `Intl.PluralRules` answers for the same number).
    static func pluralCategory(_ n: Int, language: String) -> String {
        switch language.split(separator: "-").first.map(String.init) ?? language {
        case "zh", "ja", "ko": return "other"
        case "fr":
            if n == 0 || n == 1 { return "one" }
            return n % 1_000_000 == 0 ? "many" : "other"
        case "es", "it", "pt":
            if n == 1 { return "one" }
            return n != 0 && n % 1_000_000 == 0 ? "many" : "other"
        case "cs", "sk":
            if n == 1 { return "one" }
            return (2...4).contains(n) ? "few" : "other"
        case "ar":
            switch n {
            case 0: return "zero"
            case 1: return "one"
            case 2: return "two"
            default:
                let rest = n % 100
                if (3...10).contains(rest) { return "few" }
                if (11...99).contains(rest) { return "many" }
                return "other"
            }
        default: return n == 1 ? "one" : "other"
        }
    }
}
