import Foundation
import SQLKit

/// One column of a multi-row write as a JSON array, bound as a single value: on SQLite the
/// statement reads its rows with `json_each` over the first column and takes the others by the
/// row's place (`SELECT value, ? ->> key, … FROM json_each(?)`).
///
/// SQLite parses every statement anew, and a multi-row `VALUES` list makes the text, and so the
/// parse, grow with the rows: a group commit of a hall's hellos parsed 32,000–60,000 instructions
/// a join (`Benchmarks/fanout-instructions.sh`). With each column in one bound text, a statement's
/// text is the same for one row or sixty-four. A column is a flat array, not a row an array: SQLite
/// keeps the parse of a bound argument for the statement's later calls, while a row's text, made
/// anew for each row by `json_each`, would be parsed again for every cell read from it.
///
/// A date goes as the JSON number of its seconds since 1970, written as Swift's shortest text
/// that reads back as the same `Double`; SQLite's JSON reader gives the closest `Double` to up to
/// 19 significant digits, so the REAL stored is the one a bound `Date` stores (checked by
/// `GroupCommitTests`).
struct JSONColumn {
    private var text = "["

    mutating func add(_ string: String?) {
        separate()
        if let string { LoggedChange.appendJSONString(string, to: &text) } else { text += "null" }
    }

    /// A value that is JSON text already (an object, say), as it is: `json_each` gives it back as
    /// JSON text of the same value, without escaping it as a string and reading it back.
    mutating func add(json: String) {
        separate()
        text += json
    }

    mutating func add(_ number: Int?) {
        separate()
        if let number { text += String(number) } else { text += "null" }
    }

    mutating func add(_ date: Date) throws {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { throw NotJSON(seconds: seconds) }
        separate()
        text += seconds.description
    }

    /// The text to bind.
    var json: String { text + "]" }

    private mutating func separate() {
        if text.utf8.count > 1 { text += "," }
    }

    struct NotJSON: Error, CustomStringConvertible {
        let seconds: Double
        var description: String { "a date of \(seconds) seconds has no JSON number" }
    }
}

extension SQLDatabase {
    /// Whether the rows of a multi-row write go as ``JSONColumn`` texts (SQLite) or as a `VALUES`
    /// list (PostgreSQL, which keeps its multi-row statements).
    var takesJSONColumns: Bool { dialect.name == "sqlite" }
}
