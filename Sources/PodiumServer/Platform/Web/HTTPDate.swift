import Foundation

/// HTTP dates in the one form servers send, IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`,
/// RFC 9110 §5.6.7), for `Last-Modified`, `If-Modified-Since` and `If-Range`.
///
/// Only IMF-fixdate is parsed: a conditional header in an obsolete form is treated as absent,
/// which costs at most a whole response where a shorter one would have done.
enum HTTPDate {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        return calendar
    }()

    static func format(_ date: Date) -> String {
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        let weekday = dayNames[(parts.weekday ?? 1) - 1]
        let month = monthNames[(parts.month ?? 1) - 1]
        let time = "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
        return "\(weekday), \(two(parts.day)) \(month) \(parts.year ?? 1970) \(time) GMT"
    }

    static func parse(_ text: String) -> Date? {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].hasSuffix(","), dayNames.contains(String(fields[0].dropLast())),
            let day = number(fields[1], digits: 2), let month = monthNames.firstIndex(of: String(fields[2])),
            let year = number(fields[3], digits: 4), fields[5] == "GMT"
        else { return nil }
        let time = fields[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, let hour = number(time[0], digits: 2), let minute = number(time[1], digits: 2),
            let second = number(time[2], digits: 2), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        return calendar.date(
            from: DateComponents(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second))
    }

    private static func number(_ text: Substring, digits: Int) -> Int? {
        guard text.count == digits, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// A file's modification time as HTTP can say it: whole seconds.
    static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
