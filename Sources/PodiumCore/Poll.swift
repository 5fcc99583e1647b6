/// A question the presenter puts to the audience: multiple choice or open-ended.
public struct Poll: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case choice
        case open
    }

    /// The session-wide number of the poll, assigned when it opens.
    public var id: Int
    public var kind: Kind
    public var question: String
    /// The choices of a `choice` poll, 2 to 8; empty for `open`.
    public var choices: [String]
    /// Whether a viewer may pick several choices.
    public var multiple: Bool
    /// The indices of the right choices; may be empty (an opinion poll).
    public var correct: [Int] {
        // Set (by the reveal): no longer withheld.
        didSet { withholdsCorrect = false }
    }
    /// Whether viewers see the chart while the poll is open (off avoids groupthink).
    public var showResults: Bool
    /// Part of a quiz: right answers score points, faster ones more (see ``QuizScoring``).
    public var quiz: Bool
    /// Set on a viewer's copy before the reveal (``forViewers(revealed:)``): the frame then has no
    /// `correct` at all, rather than an empty list that would read as "an opinion poll".
    public private(set) var withholdsCorrect = false

    public init(
        id: Int = 0, kind: Kind, question: String, choices: [String] = [], multiple: Bool = false,
        correct: [Int] = [], showResults: Bool = false, quiz: Bool = false
    ) {
        self.quiz = quiz
        self.id = id
        self.kind = kind
        self.question = question
        self.choices = choices
        self.multiple = multiple
        self.correct = correct
        self.showResults = showResults
    }

    enum CodingKeys: String, CodingKey { case id, kind, question, choices, multiple, correct, showResults, quiz }

    /// Clients send a poll without `id` (the server numbers it) and may leave out the defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int.self, forKey: .id) ?? 0
        kind = try container.decode(Kind.self, forKey: .kind)
        question = try container.decode(String.self, forKey: .question)
        choices = try container.decodeIfPresent([String].self, forKey: .choices) ?? []
        multiple = try container.decodeIfPresent(Bool.self, forKey: .multiple) ?? false
        correct = try container.decodeIfPresent([Int].self, forKey: .correct) ?? []
        showResults = try container.decodeIfPresent(Bool.self, forKey: .showResults) ?? false
        quiz = try container.decodeIfPresent(Bool.self, forKey: .quiz) ?? false
        // A poll from the server always has its `id`; one without `correct` is a viewer's copy
        // before the reveal, which encodes again as it came. (Clients send polls without `id`.)
        withholdsCorrect = container.contains(.id) && !container.contains(.correct)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(question, forKey: .question)
        try container.encode(choices, forKey: .choices)
        try container.encode(multiple, forKey: .multiple)
        if !withholdsCorrect { try container.encode(correct, forKey: .correct) }
        try container.encode(showResults, forKey: .showResults)
        try container.encode(quiz, forKey: .quiz)
    }

    public static let maxQuestionLength = 500
    public static let maxChoiceLength = 200
    public static let choiceCount = 2...8

    /// Whether the definition follows the rules; the server refuses others with `invalid_poll`.
    public var isValid: Bool {
        let text = question.trimmingWhitespace
        guard !text.isEmpty, text.count <= Self.maxQuestionLength else { return false }
        switch kind {
        case .open:
            return choices.isEmpty && correct.isEmpty && !quiz
        case .choice:
            guard Self.choiceCount.contains(choices.count) else { return false }
            guard choices.allSatisfy({ !$0.trimmingWhitespace.isEmpty && $0.count <= Self.maxChoiceLength }) else { return false }
            guard Set(correct).count == correct.count, correct.allSatisfy(choices.indices.contains) else { return false }
            // A quiz question needs a right answer to score.
            return (multiple || correct.count <= 1) && (!quiz || !correct.isEmpty)
        }
    }

    /// The poll as a viewer may see it: without the right answer until it is revealed.
    public func forViewers(revealed: Bool) -> Poll {
        var copy = self
        if !revealed {
            copy.correct = []
            copy.withholdsCorrect = true
        }
        return copy
    }
}

/// Where a poll stands.
public enum PollStatus: String, Codable, Sendable {
    case open
    case closed
    case revealed
}

/// A viewer's answer: chosen indices for a choice poll, text for an open one.
public enum PollAnswer: Sendable, Equatable, Codable {
    case choices([Int])
    case text(String)

    public static let maxTextLength = 500

    enum CodingKeys: String, CodingKey { case choices, text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            self = .text(text)
        } else {
            self = .choices(try container.decode([Int].self, forKey: .choices))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .choices(let choices): try container.encode(choices, forKey: .choices)
        case .text(let text): try container.encode(text, forKey: .text)
        }
    }
}

/// A poll as every client keeps it: rebuilt from the durable events.
public struct PollSnapshot: Codable, Sendable, Equatable {
    public var poll: Poll
    public var status: PollStatus
    /// Whether everyone sees the chart (set by "reveal answer and results").
    public var resultsRevealed: Bool
    /// Open answers the presenter has shown to everyone, in order.
    public var shared: [SharedAnswer]

    public init(poll: Poll, status: PollStatus = .open, resultsRevealed: Bool = false, shared: [SharedAnswer] = []) {
        self.poll = poll
        self.status = status
        self.resultsRevealed = resultsRevealed
        self.shared = shared
    }

    /// Whether viewers may see the tally now: live results while the presenter allows them,
    /// or once results were revealed.
    public var resultsVisibleToViewers: Bool { resultsRevealed || poll.showResults }

    /// The snapshot as a viewer may see it: no right answer before the reveal.
    public var forViewers: PollSnapshot {
        var copy = self
        copy.poll = poll.forViewers(revealed: status == .revealed)
        return copy
    }
}

public struct SharedAnswer: Codable, Sendable, Equatable {
    public var answerId: String
    public var text: String

    public init(answerId: String, text: String) {
        self.answerId = answerId
        self.text = text
    }
}

/// The answers to one poll: one per viewer identity, the last one counts. Kept by the server only.
public struct PollTally: Sendable, Equatable {
    public let pollId: Int
    public let choiceCount: Int
    public private(set) var answers: [String: PollAnswer] = [:]
    /// Viewers in the order of their first answer: gives open answers stable ids.
    private var order: [String] = []
    /// Seconds from the poll opening to each viewer's latest answer (for quiz speed points).
    public private(set) var answeredAfter: [String: Double] = [:]

    public init(pollId: Int, choiceCount: Int) {
        self.pollId = pollId
        self.choiceCount = choiceCount
    }

    /// Counts per choice (a viewer with several choices counts once per choice).
    public var counts: [Int] {
        var counts = Array(repeating: 0, count: choiceCount)
        for case .choices(let picked) in answers.values {
            for index in picked where counts.indices.contains(index) { counts[index] += 1 }
        }
        return counts
    }

    public var answeredCount: Int { answers.count }

    /// Open answers, newest first, with ids `<pollId>-<n>` (n: order of the viewer's first answer).
    public var openAnswers: [SharedAnswer] {
        order.enumerated().reversed().compactMap { index, viewer in
            guard case .text(let text) = answers[viewer] else { return nil }
            return SharedAnswer(answerId: "\(pollId)-\(index + 1)", text: text)
        }
    }

    public func openAnswer(id: String) -> String? {
        openAnswers.first { $0.answerId == id }?.text
    }

    /// Records an answer; returns false when it is the same as the one already held.
    @discardableResult
    public mutating func record(_ answer: PollAnswer, from viewer: String, after elapsed: Double = 0) -> Bool {
        let previous = answers.updateValue(answer, forKey: viewer)
        if previous == nil { order.append(viewer) }
        guard previous != answer else { return false }
        answeredAfter[viewer] = max(0, elapsed)
        return true
    }
}

extension String {
    var trimmingWhitespace: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return self[start..<max(start, end)]
    }
}

/// Points in a quiz: 500 for a right answer, plus up to 500 more the faster it came (nothing extra
/// after 30 seconds). A wrong answer scores nothing.
public enum QuizScoring {
    public static let base = 500
    public static let speedBonus = 500
    public static let bonusWindow = 30.0

    public static func points(correct: Bool, after elapsed: Double) -> Int {
        guard correct else { return 0 }
        let fraction = max(0, 1 - max(0, elapsed) / bonusWindow)
        return base + Int((Double(speedBonus) * fraction).rounded())
    }
}

/// One line of the leaderboard.
public struct LeaderboardEntry: Codable, Sendable, Equatable {
    /// 1 for the best; equal scores share a rank (1, 2, 2, 4).
    public var rank: Int
    public var name: String
    public var score: Int
    /// The private identity; not encoded.
    public var viewerId: String

    public init(rank: Int, name: String, score: Int, viewerId: String) {
        self.rank = rank
        self.name = name
        self.score = score
        self.viewerId = viewerId
    }

    enum CodingKeys: String, CodingKey { case rank, name, score }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rank = try container.decode(Int.self, forKey: .rank)
        name = try container.decode(String.self, forKey: .name)
        score = try container.decode(Int.self, forKey: .score)
        viewerId = ""
    }
}
