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

    /// By arithmetic on the seconds since 1970 (days to a civil date in the Gregorian calendar, as
    /// `Calendar` has it for any date since 1582), not `Calendar.dateComponents`, which was most of
    /// the cost of a file answer's head: `Last-Modified` and each second's `Date` are made here.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let (days, second) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, secondOfDay) = second < 0 ? (days - 1, second + 86_400) : (days, second)
        let (year, month, dayOfMonth) = civil(daysSince1970: day)
        // 1 January 1970 was a Thursday (4, counting Sunday as 0).
        let weekday = ((day % 7) + 11) % 7
        var text = dayNames[weekday]
        text += ", "
        text += two(dayOfMonth)
        text += " "
        text += monthNames[month - 1]
        text += " "
        text += String(year)
        text += " "
        text += two(secondOfDay / 3600)
        text += ":"
        text += two(secondOfDay / 60 % 60)
        text += ":"
        text += two(secondOfDay % 60)
        text += " GMT"
        return text
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }

    /// Year, month (1-12) and day (1-31) of a day counted from 1 January 1970 (Howard Hinnant's
    /// `civil_from_days`: eras of 400 years, years starting in March).
    static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
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
