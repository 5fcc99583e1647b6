import Foundation
import PodiumCore
import Synchronization
import Testing

@testable import PodiumServer

/// Random and broken WebSocket frames thrown at a live session from several sockets at once (a
/// stranger who never joined, a viewer, two signed-in presenters whose mutated commands reach the
/// rules, not just the role check), while honest viewers watch. Afterwards every honest viewer
/// must have received every durable event exactly once and in order, a late joiner a welcome
/// that matches the events, and the presenter's next commands must work.
///
/// Random per run. The seed is printed and is in every failure message; `PODIUM_FUZZ_SEED=<seed>`
/// replays the same frames (each attacker's frames follow from the seed; how the attackers
/// interleave is up to the scheduler). The work is bounded by a frame budget and a time budget,
/// whichever runs out first (`PODIUM_FUZZ_FRAMES`, default 8,000; `PODIUM_FUZZ_SECONDS`, default
/// 20); the time bound only limits the work, nothing is asserted about time.
@Suite("Frame fuzz", .timeLimit(.minutes(5)))
struct FrameFuzzTests {
    typealias SplitMix = HostileInputTests.SplitMix

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static func seed() -> UInt64 {
        if let given = environment["PODIUM_FUZZ_SEED"].flatMap(UInt64.init) { return given }
        var system = SystemRandomNumberGenerator()
        return system.next()
    }

    /// Frames sent by all attackers together, and when to stop sending.
    final class Budget: Sendable {
        let frames: Int
        let deadline: ContinuousClock.Instant
        private let sent = Atomic<Int>(0)

        init(frames: Int, seconds: Double) {
            self.frames = frames
            deadline = .now + .milliseconds(Int(seconds * 1000))
        }

        /// Takes one frame from the budget, or says it is spent.
        func take() -> Bool {
            guard ContinuousClock.now < deadline else { return false }
            return sent.wrappingAdd(1, ordering: .relaxed).newValue <= frames
        }

        var spent: Bool { ContinuousClock.now >= deadline || sent.load(ordering: .relaxed) >= frames }
        var used: Int { min(frames, sent.load(ordering: .relaxed)) }
    }

    enum Attacker: String, CaseIterable, Sendable {
        /// Never says a proper hello (though a mutated hello may get it in as a viewer).
        case stranger
        case viewer
        /// Signed in as the session's presenter: mutated commands reach validation.
        case presenter
        case secondPresenter
    }

    /// What an attacker did and saw.
    struct Report: Sendable {
        var frames: [String: Int] = [:]
        var codes: [String: Int] = [:]
        var connections = 0
        var closedByServer = 0
        /// Messages that reached a joining socket before its welcome.
        var beforeWelcome = 0
        /// Replies that were not a JSON object with a `type` (and, for errors, a `code`).
        var malformed: [String] = []
        var problems: [String] = []

        mutating func check(_ message: RawWebSocket.Incoming) {
            switch message {
            case .text(let text):
                let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
                guard let type = object?["type"] as? String else {
                    malformed.append(String(text.prefix(200)))
                    return
                }
                if type == "error" {
                    guard let code = object?["code"] as? String, !code.isEmpty else {
                        malformed.append(String(text.prefix(200)))
                        return
                    }
                    codes[code, default: 0] += 1
                }
            case .binary(let bytes):
                malformed.append("a binary frame of \(bytes.count) bytes")
            case .ping, .pong, .close:
                break
            }
        }
    }

    @Test func randomAndBrokenFramesLeaveEveryoneServed() async throws {
        let seed = Self.seed()
        let frames = Self.environment["PODIUM_FUZZ_FRAMES"].flatMap(Int.init) ?? 8_000
        let seconds = Self.environment["PODIUM_FUZZ_SECONDS"].flatMap(Double.init) ?? 20
        let replay = "fuzz seed \(seed) (replay: PODIUM_FUZZ_SEED=\(seed))"
        print("Frame fuzz: \(replay), budget \(frames) frames or \(seconds) s")
        // So that mutated commands reach the rules instead of the per-socket rate limit.
        let server = TestServer { $0.socketMessageRate = 1_000_000 }
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            let deckId = try await client.readyDeck(token: token)
            let session = try await client.startSession(deckId: deckId, token: token)
            let code = try #require(session["code"] as? String)
            let sentinel = "fuzz-sentinel-\(seed)"

            let (ready, readySignal) = AsyncStream.makeStream(of: Void.self)
            try await withThrowingTaskGroup(of: Watched.self) { honest in
                for index in 0..<3 {
                    honest.addTask {
                        try await Self.watch(port: client.port, code: code, index: index, until: sentinel, ready: readySignal)
                    }
                }
                var readiness = ready.makeAsyncIterator()
                for _ in 0..<3 { _ = await readiness.next() }

                let budget = Budget(frames: frames, seconds: seconds)
                // Each attacker its own stream of frames, all following from the seed.
                var seeds = SplitMix(state: seed)
                let attackerSeeds = Attacker.allCases.map { _ in seeds.next() }
                let reports = await withTaskGroup(of: (Attacker, Report).self) { group in
                    for (index, attacker) in Attacker.allCases.enumerated() {
                        group.addTask {
                            var random = SplitMix(state: attackerSeeds[index])
                            let report = await Self.attack(
                                as: attacker, port: client.port, code: code, token: token, budget: budget, random: &random)
                            return (attacker, report)
                        }
                    }
                    var reports: [(Attacker, Report)] = []
                    for await report in group { reports.append(report) }
                    return reports
                }
                print("Frame fuzz: \(budget.used) frames sent; \(replay)")
                for (attacker, report) in reports.sorted(by: { $0.0.rawValue < $1.0.rawValue }) {
                    print(
                        "  \(attacker): \(report.connections) connections, \(report.closedByServer) closed by the server, "
                            + "\(report.beforeWelcome) messages before a welcome, "
                            + "frames \(report.frames.sorted { $0.key < $1.key }), error codes \(report.codes.sorted { $0.key < $1.key })"
                    )
                    #expect(
                        report.malformed.isEmpty,
                        "\(attacker) got replies that are not typed messages: \(report.malformed.prefix(5)); \(replay)")
                    #expect(report.problems.isEmpty, "\(attacker): \(report.problems.prefix(5)); \(replay)")
                    #expect(report.connections > 0, "\(attacker) never connected; \(replay)")
                }

                // The presenter's next command works and ends what the honest viewers wait for.
                let presenter = try await client.socket(code: code)
                let presenterWelcome = try await presenter.hello(["role": "presenter", "token": token])
                try #require(presenterWelcome["type"] as? String == "welcome", "presenter hello after the fuzz; \(replay)")
                try await presenter.send(
                    ##"{"type":"stroke","id":"\##(sentinel)","stroke":{"page":1,"tool":"pen","color":"#123456","width":0.01,"points":[[0.1,0.1,0.5],[0.9,0.9,0.5]]}}"##
                )
                let ack = try await Self.answer(to: sentinel, on: presenter)
                #expect(ack["type"] as? String == "ack", "sentinel stroke: \(ack); \(replay)")
                let finalSeq = try #require(ack["seq"] as? Int, "\(replay)")

                var watched: [Watched] = []
                do {
                    for try await one in honest { watched.append(one) }
                } catch {
                    Issue.record("an honest viewer failed: \(error); \(replay)")
                }
                print("Frame fuzz: the session reached seq \(finalSeq); honest viewers saw \(watched.map(\.events.count)) events")

                // A late joiner replays the whole history and gets a snapshot that matches it.
                let late = try await RawWebSocket.connect(port: client.port, path: "/api/v1/sessions/\(code)/live")
                try await late.send(["type": "hello", "role": "viewer", "lastSeq": 0])
                let welcomeText = try #require(await late.nextText(), "late joiner got no welcome; \(replay)")
                let welcome = try JSONDecoder().decode(LateWelcome.self, from: Data(welcomeText.utf8))
                #expect(welcome.type == "welcome", "\(replay)")
                #expect(welcome.seq == finalSeq, "late welcome at seq \(welcome.seq), expected \(finalSeq); \(replay)")
                let history = welcome.events ?? []
                #expect(
                    history.map(\.seq) == Array(1...finalSeq),
                    "late joiner replayed \(Self.summary(history.map(\.seq))); \(replay)")
                var rebuilt = SessionSnapshot()
                for event in history { rebuilt.apply(event.change) }
                #expect(rebuilt.forViewers == welcome.snapshot, "late snapshot differs from its own events; \(replay)")

                // Every honest viewer got every durable event after its welcome, in order, once, the same as the history.
                for viewer in watched {
                    #expect(viewer.ended == nil, "honest viewer \(viewer.index): \(viewer.ended ?? ""); \(replay)")
                    let seqs = viewer.events.map(\.seq)
                    let expected = Array(stride(from: viewer.welcomeSeq + 1, through: finalSeq, by: 1))
                    #expect(
                        seqs == expected,
                        "honest viewer \(viewer.index) saw seqs \(Self.summary(seqs)), expected \(Self.summary(expected)); \(replay)"
                    )
                    let matching = history.filter { $0.seq > viewer.welcomeSeq }
                    #expect(
                        viewer.events == matching, "honest viewer \(viewer.index)'s events differ from the history; \(replay)")
                }

                // And the session goes on: the next command reaches everyone, the server answers.
                try await presenter.send(#"{"type":"erase","id":"after-fuzz","strokeId":"\#(sentinel)"}"#)
                #expect(try await Self.answer(to: "after-fuzz", on: presenter)["type"] as? String == "ack", "\(replay)")
                var erased: [String: Any]?
                while let text = await late.nextText() {
                    let message = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                    if message?["type"] as? String == "erased" {
                        erased = message
                        break
                    }
                }
                #expect(erased?["seq"] as? Int == finalSeq + 1, "late joiner live after the fuzz; \(replay)")
                #expect(try await client.request(.get, "/healthz").status == .ok, "\(replay)")
                late.close()
                await presenter.close()
            }
        }
    }

    /// The `ack` or `error` of this command id, skipping the events before it.
    static func answer(to id: String, on socket: TestSocket) async throws -> [String: Any] {
        while let message = try await socket.nextDurable() {
            let type = message["type"] as? String
            if type == "ack" || type == "error", message["id"] as? String == id { return message }
        }
        return [:]
    }

    static func summary(_ seqs: [Int]) -> String {
        seqs.count <= 12 ? "\(seqs)" : "\(seqs.prefix(5))…\(seqs.suffix(5)) (\(seqs.count))"
    }

    struct LateWelcome: Decodable {
        let type: String
        let seq: Int
        let snapshot: SessionSnapshot
        let events: [SessionEvent]?
    }

    // MARK: - Honest viewers

    struct Watched: Sendable {
        let index: Int
        let welcomeSeq: Int
        let events: [SessionEvent]
        /// Why it stopped before the sentinel, if it did.
        let ended: String?
    }

    /// A viewer connected throughout: reads every message until the sentinel stroke arrives.
    static func watch(
        port: Int, code: String, index: Int, until sentinel: String, ready: AsyncStream<Void>.Continuation
    ) async throws -> Watched {
        let socket: RawWebSocket
        do {
            socket = try await RawWebSocket.connect(
                port: port, path: "/api/v1/sessions/\(code)/live",
                headers: [("Cookie", RoomTests.identity("honest\(index)"))])
            try await socket.send(["type": "hello", "role": "viewer", "name": "Honest \(index)"])
        } catch {
            ready.yield()
            throw error
        }
        var welcomeSeq = -1
        var events: [SessionEvent] = []
        defer { socket.close() }
        while let text = await socket.nextText() {
            let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
            let type = object?["type"] as? String
            if type == "welcome" {
                welcomeSeq = object?["seq"] as? Int ?? -1
                ready.yield()
                continue
            }
            guard welcomeSeq >= 0 else {
                ready.yield()
                return Watched(index: index, welcomeSeq: 0, events: [], ended: "no welcome: \(text.prefix(200))")
            }
            guard object?["seq"] != nil, type != "ack" else { continue }
            events.append(try JSONDecoder().decode(SessionEvent.self, from: Data(text.utf8)))
            if type == "stroke", (object?["stroke"] as? [String: Any])?["id"] as? String == sentinel {
                return Watched(index: index, welcomeSeq: welcomeSeq, events: events, ended: nil)
            }
        }
        if welcomeSeq < 0 { ready.yield() }
        return Watched(index: index, welcomeSeq: max(0, welcomeSeq), events: events, ended: "the server closed the socket")
    }

    // MARK: - Attackers

    /// Connects, says hello as the attacker's role, and sends frames until the budget is spent,
    /// reconnecting whenever the server closes the connection.
    static func attack(
        as attacker: Attacker, port: Int, code: String, token: String, budget: Budget, random: inout SplitMix
    ) async -> Report {
        var report = Report()
        var probes: UInt32 = 0
        while !budget.spent {
            let socket: RawWebSocket
            do {
                socket = try await RawWebSocket.connect(port: port, path: "/api/v1/sessions/\(code)/live")
            } catch {
                report.problems.append("could not connect: \(error)")
                if report.problems.count > 20 { break }
                continue
            }
            if report.problems.count > 20 { break }
            report.connections += 1
            defer { socket.close() }
            var hello: [String: Any]?
            switch attacker {
            case .stranger: hello = nil
            case .viewer: hello = ["type": "hello", "role": "viewer"]
            case .presenter, .secondPresenter: hello = ["type": "hello", "role": "presenter", "token": token]
            }
            if let hello {
                do {
                    try await socket.send(hello)
                } catch {
                    continue
                }
                // The welcome, after whatever may overtake it (see WelcomeOrderTests).
                var reply = ""
                while let text = await socket.nextText() {
                    reply = text
                    if text.contains(#""type":"welcome""#) || text.contains(#""type":"error""#) { break }
                    report.beforeWelcome += 1
                }
                guard reply.contains(#""type":"welcome""#) else {
                    report.problems.append("\(attacker) hello answered \(reply.prefix(200))")
                    continue
                }
            }
            var sinceProbe = 0
            connection: while budget.take() {
                let frame = Self.frame(for: attacker, random: &random)
                report.frames[frame.kind, default: 0] += 1
                do {
                    try await socket.write(frame.bytes)
                } catch {
                    break connection
                }
                sinceProbe += 1
                switch frame.effect {
                case .hangUp:
                    break connection
                case .mayClose:
                    sinceProbe = 0
                    guard await Self.probe(socket, number: &probes, report: &report) else { break connection }
                case .continues:
                    if sinceProbe >= 20 {
                        sinceProbe = 0
                        guard await Self.probe(socket, number: &probes, report: &report) else { break connection }
                    }
                }
            }
            if socket.closed { report.closedByServer += 1 }
        }
        return report
    }

    /// Sends a ping with a payload of its own and reads (checking every reply) until its pong:
    /// true, the connection serves on; or until the server closes it: false.
    static func probe(_ socket: RawWebSocket, number: inout UInt32, report: inout Report) async -> Bool {
        number &+= 1
        let payload: [UInt8] = [0x50, 0x52, 0x4F, 0x42] + withUnsafeBytes(of: number.bigEndian, Array.init)
        do {
            try await socket.write(RawWebSocket.frame(RawWebSocket.Opcode.ping, payload: payload))
        } catch {
            return false
        }
        while let message = await socket.next() {
            report.check(message)
            if case .pong(let echoed) = message, echoed == payload { return true }
        }
        return false
    }

    // MARK: - Frames

    enum Effect {
        /// The connection goes on.
        case continues
        /// The server may close the connection: probe before sending more.
        case mayClose
        /// The frame is unfinished on purpose: hang up after it.
        case hangUp
    }

    struct Frame {
        let kind: String
        let bytes: [UInt8]
        let effect: Effect
    }

    /// Every message type, with plausible values: the material the mutations start from.
    static let templates: [String] = [
        #"{"type":"hello","role":"viewer","name":"Eve","lastSeq":3}"#, #"{"type":"hello","role":"presenter","token":"x"}"#,
        #"{"type":"goto","id":"a","page":2}"#, #"{"type":"goto","id":"a","page":1}"#,
        #"{"type":"goto","id":"a","page":3}"#, #"{"type":"zoom","id":"a","viewport":{"x":0.5,"y":0,"w":0.5,"h":0.25}}"#,
        #"{"type":"blank","id":"a","mode":"white"}"#, #"{"type":"zoom","id":"a","viewport":{"x":0.1,"y":0.1,"w":0.5,"h":0.5}}"#,
        #"{"type":"blank","id":"a","mode":"black"}"#, #"{"type":"blank","id":"a","mode":"none"}"#,
        #"{"type":"lock","id":"a","locked":false}"#, #"{"type":"lock","id":"a","locked":true}"#,
        #"{"type":"end","id":"a"}"#, #"{"type":"pointer","x":0.5,"y":0.5}"#, #"{"type":"pointer","visible":false}"#,
        ##"{"type":"inking","page":1,"tool":"pen","color":"#FF0000","width":0.01,"points":[[0.1,0.1,0.5],[0.2,0.2,0.5]]}"##,
        #"{"type":"inking","done":true}"#,
        ##"{"type":"stroke","id":"a","stroke":{"page":1,"tool":"highlighter","color":"#00FF00","width":0.02,"points":[[0.1,0.1,0.5],[0.3,0.3,1]]}}"##,
        #"{"type":"erase","id":"a","strokeId":"a"}"#, #"{"type":"clearPage","id":"a","page":1}"#,
        #"{"type":"openPoll","id":"a","poll":{"kind":"choice","question":"Q?","choices":["A","B","C"],"multiple":true,"correct":[1],"showResults":true,"quiz":false}}"#,
        #"{"type":"openPoll","id":"a","poll":{"kind":"open","question":"Why?"}}"#,
        #"{"type":"openPoll","id":"a","poll":{"kind":"choice","question":"Quiz","choices":["A","B"],"correct":[0],"quiz":true}}"#,
        #"{"type":"closePoll","id":"a","pollId":5}"#, #"{"type":"revealPoll","id":"a","pollId":5,"results":true}"#,
        #"{"type":"shareAnswer","id":"a","pollId":5,"answerId":"x"}"#, #"{"type":"answer","id":"a","pollId":5,"choices":[0,2]}"#,
        #"{"type":"answer","id":"a","pollId":5,"text":"Because"}"#,
        #"{"type":"setQuestionMode","id":"a","questions":{"public":true,"approval":false}}"#,
        #"{"type":"ask","id":"a","text":"Why?","page":2,"anonymous":true}"#,
        #"{"type":"markQuestion","id":"a","questionId":"q","answered":true}"#,
        #"{"type":"approveQuestion","id":"a","questionId":"q","approved":true}"#,
        #"{"type":"vote","id":"a","questionId":"q","up":true}"#, #"{"type":"resync","afterSeq":0}"#, #"{"type":"ping"}"#,
        #"{"type":"request","id":"a"}"#, #"{"type":"grant","id":"a","presenterId":"p1"}"#,
        #"{"type":"pass","id":"a","presenterId":"p1"}"#, #"{"type":"doNotDisturb","id":"a","on":true}"#,
        #"{"type":"setQueueCap","id":"a","cap":2}"#, #"{"type":"showDeck","id":"a","deckId":"d","page":1}"#,
        ##"{"type":"setBackground","id":"a","color":"#101010"}"##,
    ]

    /// The templates a presenter may send whole: all but `end`.
    static let presenterTemplates = templates.filter { !endsSession($0) }

    /// Every message type, and a few that are not.
    static let types = [
        "hello", "goto", "zoom", "blank", "lock", "end", "pointer", "inking", "stroke", "erase", "clearPage", "openPoll",
        "closePoll", "revealPoll", "shareAnswer", "answer", "setQuestionMode", "ask", "markQuestion", "approveQuestion", "vote",
        "resync", "ping", "request", "cancelRequest", "grant", "handOverNext", "withdraw", "pass", "returnControl",
        "doNotDisturb", "setQueueCap", "showDeck", "setBackground", "addDeck", "join", "", "Goto", "👀", "__proto__",
    ]

    /// Picks a frame for this attacker: mostly structured mutations of real messages for
    /// presenters (they pass the role check), a wide spread of broken frames for everyone.
    static func frame(for attacker: Attacker, random: inout SplitMix) -> Frame {
        let presenter = attacker == .presenter || attacker == .secondPresenter
        let stranger = attacker == .stranger
        let roll = Int.random(in: 0..<100, using: &random)
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }
        func text(_ payload: [UInt8], kind: String, effect: Effect = .continues) -> Frame {
            Frame(kind: kind, bytes: RawWebSocket.frame(RawWebSocket.Opcode.text, payload: payload, mask: mask), effect: effect)
        }
        switch roll {
        case 0..<(presenter ? 12 : 5):
            // A valid message with a fresh id: presenters' become durable events the honest viewers must all get.
            let json = mutateJSON(
                (presenter ? presenterTemplates : templates).randomElement(using: &random)!, changes: 0, random: &random)
            return text(Array(json.utf8), kind: "valid", effect: stranger ? .mayClose : .continues)
        case 0..<(presenter ? 55 : 25):
            // A structurally mutated message. A presenter never sends one that would end the session.
            var json = mutateJSON(templates.randomElement(using: &random)!, random: &random)
            while presenter, endsSession(json) {
                json = mutateJSON(presenterTemplates.randomElement(using: &random)!, random: &random)
            }
            // Replies to a stranger's junk close the socket; so may a message over 64 KiB.
            return text(Array(json.utf8), kind: "mutated", effect: stranger || json.utf8.count > 60_000 ? .mayClose : .continues)
        case 0..<(presenter ? 62 : 35):
            var json = HostileInputTests.mutate(templates.randomElement(using: &random)!, using: &random)
            while presenter, endsSession(json) {
                json = HostileInputTests.mutate(presenterTemplates.randomElement(using: &random)!, using: &random)
            }
            return text(Array(json.utf8), kind: "bytes-mutated", effect: stranger ? .mayClose : .continues)
        case 0..<(presenter ? 66 : 42):
            return text(randomBytes(Int.random(in: 0...300, using: &random), &random), kind: "random-text", effect: .mayClose)
        case 0..<(presenter ? 70 : 49):
            let invalid: [[UInt8]] = [
                [0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82],
            ]
            let payload =
                Array(#"{"type":"ask","id":"u","text":""#.utf8) + invalid.randomElement(using: &random)! + Array(#""}"#.utf8)
            return text(payload, kind: "invalid-utf8", effect: .mayClose)
        case 0..<(presenter ? 74 : 56):
            let payload = randomBytes(Int.random(in: 0...300, using: &random), &random)
            return Frame(
                kind: "binary", bytes: RawWebSocket.frame(RawWebSocket.Opcode.binary, payload: payload, mask: mask),
                effect: .continues)
        case 0..<(presenter ? 80 : 64):
            // A message in pieces, sometimes with a ping between them.
            let json = Array((presenter ? presenterTemplates : templates).randomElement(using: &random)!.utf8)
            var cuts = (0..<Int.random(in: 1...4, using: &random)).map { _ in Int.random(in: 0...json.count, using: &random) }
            cuts = ([0] + cuts + [json.count]).sorted()
            var bytes: [UInt8] = []
            for index in 0..<(cuts.count - 1) {
                let piece = Array(json[cuts[index]..<cuts[index + 1]])
                bytes += RawWebSocket.frame(
                    index == 0 ? RawWebSocket.Opcode.text : RawWebSocket.Opcode.continuation, payload: piece,
                    fin: index == cuts.count - 2, mask: mask)
                if Bool.random(using: &random) {
                    bytes += RawWebSocket.frame(RawWebSocket.Opcode.ping, payload: [UInt8(index)], mask: mask)
                }
            }
            return Frame(kind: "fragmented", bytes: bytes, effect: stranger ? .mayClose : .continues)
        case 0..<(presenter ? 83 : 68):
            // Broken fragmentation: a continuation with nothing to continue, or a new message inside one.
            let payload = Array(#"{"type":"ping"}"#.utf8)
            let bytes =
                Bool.random(using: &random)
                ? RawWebSocket.frame(RawWebSocket.Opcode.continuation, payload: payload, mask: mask)
                : RawWebSocket.frame(RawWebSocket.Opcode.text, payload: [0x7B], fin: false, mask: mask)
                    + RawWebSocket.frame(RawWebSocket.Opcode.text, payload: payload, mask: mask)
            return Frame(kind: "bad-fragments", bytes: bytes, effect: .mayClose)
        case 0..<(presenter ? 86 : 72):
            let rsv = UInt8.random(in: 1...7, using: &random)
            return Frame(
                kind: "reserved-bits",
                bytes: RawWebSocket.frame(
                    RawWebSocket.Opcode.text, payload: Array(#"{"type":"ping"}"#.utf8), rsv: rsv, mask: mask),
                effect: .mayClose)
        case 0..<(presenter ? 89 : 76):
            let opcode = [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF].randomElement(using: &random)!
            return Frame(
                kind: "unknown-opcode",
                bytes: RawWebSocket.frame(
                    UInt8(opcode), payload: randomBytes(Int.random(in: 0...20, using: &random), &random), mask: mask),
                effect: .mayClose)
        case 0..<(presenter ? 92 : 82):
            // Ping and pong with payloads; both fine.
            let opcode = Bool.random(using: &random) ? RawWebSocket.Opcode.ping : RawWebSocket.Opcode.pong
            let payload = randomBytes(Int.random(in: 0...125, using: &random), &random)
            return Frame(kind: "ping-pong", bytes: RawWebSocket.frame(opcode, payload: payload, mask: mask), effect: .continues)
        case 0..<(presenter ? 94 : 86):
            // Control frames the protocol forbids: too long, fragmented, a close with a broken body.
            let bytes: [UInt8]
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                bytes = RawWebSocket.frame(
                    RawWebSocket.Opcode.ping, payload: randomBytes(126 + Int.random(in: 0...200, using: &random), &random),
                    mask: mask)
            case 1: bytes = RawWebSocket.frame(RawWebSocket.Opcode.ping, payload: [1, 2], fin: false, mask: mask)
            case 2: bytes = RawWebSocket.frame(RawWebSocket.Opcode.close, payload: [0x03], mask: mask)
            default: bytes = RawWebSocket.frame(RawWebSocket.Opcode.close, payload: [0x03, 0xE8, 0xFF, 0xFE], mask: mask)
            }
            return Frame(kind: "bad-control", bytes: bytes, effect: .mayClose)
        case 0..<(presenter ? 96 : 90):
            // Too big: a real payload over the 64 KiB limit, or a header that claims far more.
            if Bool.random(using: &random) {
                let payload = Array(repeating: UInt8(ascii: "a"), count: 64 * 1024 + Int.random(in: 1...4096, using: &random))
                return text(payload, kind: "oversized", effect: .mayClose)
            }
            let claimed: UInt64 = [1 << 20, 1 << 32, 1 << 62, UInt64.max >> 1].randomElement(using: &random)!
            return Frame(
                kind: "oversized",
                bytes: RawWebSocket.frame(
                    RawWebSocket.Opcode.text, payload: randomBytes(16, &random), declaredLength: claimed, mask: mask),
                effect: .mayClose)
        case 0..<(presenter ? 98 : 94):
            // Clients must mask; this one does not.
            return Frame(
                kind: "unmasked",
                bytes: RawWebSocket.frame(RawWebSocket.Opcode.text, payload: Array(#"{"type":"ping"}"#.utf8), masked: false),
                effect: .mayClose)
        default:
            // Half a frame, then the connection drops.
            let whole = RawWebSocket.frame(
                RawWebSocket.Opcode.text, payload: Array(templates.randomElement(using: &random)!.utf8), mask: mask)
            return Frame(
                kind: "truncated", bytes: Array(whole.prefix(Int.random(in: 1..<whole.count, using: &random))), effect: .hangUp)
        }
    }

    static func randomBytes(_ count: Int, _ random: inout SplitMix) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Whether the server would take this as `end`: a fuzzing presenter must not end the session
    /// the honest viewers are checked against.
    static func endsSession(_ json: String) -> Bool {
        guard let message = try? JSONDecoder().decode(ClientMessage.self, from: Data(json.utf8)) else { return false }
        if case .command(_, .end) = message { return true }
        return false
    }

    /// Values of the wrong type, for any field.
    static var wrongTypes: [Any] { ["x", "", 0, -1, 1.5, true, false, NSNull(), [Any](), [String: Any](), [1, 2], ["a": 1]] }

    /// Raw JSON the serializer cannot write: huge and odd numbers, deep nesting, long or odd strings.
    static func rawValue(_ random: inout SplitMix) -> String {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            return [
                "1e308", "-1e308", "1e400", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                "123456789012345678901234567890", "1e-400", "-0", "0.000000000000000000001", "4294967297",
            ].randomElement(using: &random)!
        case 1:
            let depth = [16, 200, 600, 5_000, 20_000].randomElement(using: &random)!
            return Bool.random(using: &random)
                ? String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
                : String(repeating: #"{"a":"#, count: depth / 4) + "1" + String(repeating: "}", count: depth / 4)
        case 2:
            let length = [1_000, 20_000, 60_000].randomElement(using: &random)!
            let unit = ["a", "é", "💥", "\\u0000", "\\\"", "\\ud800", "\\n"].randomElement(using: &random)!
            return "\"" + String(repeating: unit, count: length / unit.utf8.count) + "\""
        default:
            return [#""\ud800""#, #""\udfff\ud800""#, #""\u0000""#, ##""#FFFFFFFF""##, #""NaN""#, #""  ""#, #""🙂""#]
                .randomElement(using: &random)!
        }
    }

    /// A message with one to three structural changes: a field deleted, a value of the wrong type,
    /// a raw value, an unknown field, or a different or unknown `type`. Ids are fresh, so a
    /// mutation that is valid is a new command, not a duplicate.
    static func mutateJSON(_ template: String, changes: Int? = nil, random: inout SplitMix) -> String {
        guard var root = (try? JSONSerialization.jsonObject(with: Data(template.utf8))) as? [String: Any] else { return template }
        if root["id"] != nil { root["id"] = "f" + String(random.next() % 1_000_000_000, radix: 36) }
        var raws: [String: String] = [:]
        for _ in 0..<(changes ?? Int.random(in: 1...3, using: &random)) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                root["type"] = types.randomElement(using: &random)!
            case 1:
                root["x" + String(random.next() % 1000)] = wrongTypes.randomElement(using: &random)!
            default:
                let placeholder = "@@RAW\(raws.count)@@"
                let replacement: Any
                switch Int.random(in: 0..<3, using: &random) {
                case 0: replacement = Deletion()
                case 1: replacement = wrongTypes.randomElement(using: &random)!
                default:
                    raws[placeholder] = rawValue(&random)
                    replacement = placeholder
                }
                root = replaceSomewhere(in: root, with: replacement, random: &random) as? [String: Any] ?? root
            }
        }
        guard JSONSerialization.isValidJSONObject(root),
            var json = (try? JSONSerialization.data(withJSONObject: root)).map({ String(decoding: $0, as: UTF8.self) })
        else { return template }
        for (placeholder, raw) in raws { json = json.replacingOccurrences(of: "\"\(placeholder)\"", with: raw) }
        return json
    }

    /// Marks a field to delete.
    struct Deletion {}

    /// Puts `replacement` at a random place in the value: a field of an object, an element of an array.
    static func replaceSomewhere(in value: Any, with replacement: Any, random: inout SplitMix) -> Any {
        if var object = value as? [String: Any], !object.isEmpty {
            let key = object.keys.sorted().randomElement(using: &random)!
            if let child = object[key], child is [String: Any] || child is [Any], Bool.random(using: &random) {
                object[key] = replaceSomewhere(in: child, with: replacement, random: &random)
            } else if replacement is Deletion {
                object[key] = nil
            } else {
                object[key] = replacement
            }
            return object
        }
        if var array = value as? [Any], !array.isEmpty {
            let index = Int.random(in: 0..<array.count, using: &random)
            if array[index] is [String: Any] || array[index] is [Any], Bool.random(using: &random) {
                array[index] = replaceSomewhere(in: array[index], with: replacement, random: &random)
            } else if replacement is Deletion {
                array.remove(at: index)
            } else {
                array[index] = replacement
            }
            return array
        }
        return replacement is Deletion ? value : replacement
    }
}
