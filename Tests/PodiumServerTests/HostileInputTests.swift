import Foundation
import HTTPTypes
import Testing

@testable import PodiumServer

/// Whatever a hostile or broken client sends, the server answers with typed errors and keeps
/// serving everyone else correctly.
@Suite("Hostile input", .timeLimit(.minutes(3)))
struct HostileInputTests {
    /// A deterministic generator, so a failing run can be replayed with the same seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seeds: [String] = [
        #"{"type":"hello","role":"viewer"}"#, #"{"type":"goto","id":"a","page":2}"#,
        #"{"type":"zoom","id":"b","viewport":{"x":0.1,"y":0.1,"w":0.5,"h":0.5}}"#, #"{"type":"pointer","x":0.5,"y":0.5}"#,
        #"{"type":"answer","id":"c","pollId":1,"choices":[0]}"#, #"{"type":"ask","id":"d","text":"hi","anonymous":true}"#,
        #"{"type":"openPoll","id":"e","poll":{"kind":"choice","question":"Q","choices":["A","B"]}}"#,
        #"{"type":"vote","id":"f","questionId":"d"}"#, #"{"type":"resync","afterSeq":0}"#, #"{"type":"end","id":"g"}"#,
    ]

    /// A seed message with a few bytes flipped, cut, duplicated or replaced by odd values.
    static func mutate(_ seed: String, using random: inout SplitMix) -> String {
        var bytes = Array(seed.utf8)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.removeSubrange(index...)
            case 2: bytes.insert(contentsOf: bytes[index...].prefix(8), at: index)
            case 3:
                let odd = ["-1", "1e308", "null", "\"\"", "[]", "{}", "9999999999999999999", "\"\\u0000\"", "true"]
                bytes.insert(contentsOf: Array(odd.randomElement(using: &random)!.utf8), at: index)
            case 4: bytes.swapAt(index, Int.random(in: 0..<bytes.count, using: &random))
            default: bytes.insert(contentsOf: Array(String(repeating: "[", count: 40).utf8), at: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func fuzzedFramesNeitherCrashNorDisturbOthers() async throws {
        try await TestServer.withLiveSession { client, token, code in
            let presenter = try await client.socket(code: code)
            _ = try await presenter.hello(["role": "presenter", "token": token])
            let honest = try await client.socket(code: code)
            _ = try await honest.hello(["role": "viewer"])

            var random = SplitMix(state: 20_261_122)
            // Half the attackers never say hello properly; half are admitted viewers first.
            for round in 0..<8 {
                let attacker = try await client.socket(code: code)
                if round.isMultiple(of: 2) { _ = try await attacker.hello(["role": "viewer"]) }
                for _ in 0..<150 {
                    let seed = Self.seeds.randomElement(using: &random)!
                    let frame =
                        Int.random(in: 0..<10, using: &random) == 0
                        ? String(repeating: "\u{FFFD}", count: 200) : Self.mutate(seed, using: &random)
                    do { try await attacker.send(frame) } catch { break }  // the server may close a socket it gave up on
                }
                try? await attacker.send(#"{"type":"ping"}"#)
                // Every reply is well-formed JSON with a type (next() requires an object).
                while let message = try? await attacker.next() {
                    #expect(message["type"] is String)
                    if message["type"] as? String == "pong" { break }
                }
                await attacker.close()
            }

            // The session still works for the people in it, in order, exactly once.
            try await presenter.send(#"{"type":"goto","id":"after-fuzz","page":3}"#)
            let event = try await honest.nextDurable()
            #expect(event?["type"] as? String == "page")
            #expect(event?["page"] as? Int == 3)
            try await honest.barrier()
            #expect(try await client.request(.get, "/healthz").status == .ok)
            let late = try await client.socket(code: code)
            let welcome = try await late.hello(["role": "viewer"])
            #expect((welcome["snapshot"] as? [String: Any])?["page"] as? Int == 3)
        }
    }

    @Test func malformedHTTPBodiesGetClearClientErrors() async throws {
        let server = TestServer()
        defer { server.removeData() }
        try await server.run { client in
            let token = try await client.login()
            for (path, body) in [
                ("/api/v1/auth/login", "{"), ("/api/v1/auth/login", #"{"email":1}"#), ("/api/v1/sessions", "[]"),
                ("/api/v1/folders", #"{"name":""}"#),
            ] {
                let response = try await client.request(.post, path, token: token, json: body)
                #expect((400..<500).contains(response.status.code), "\(path) \(body) → \(response.status)")
            }
            let huge = String(repeating: "x", count: 2 << 20)
            let tooBig = try await client.request(.post, "/api/v1/folders", token: token, json: #"{"name":"\#(huge)"}"#)
            #expect(tooBig.status == .contentTooLarge)
            for path in [
                "/blobs/..%2F..%2Fetc%2Fpasswd", "/vendor/../../etc/passwd", "/vendor/%2e%2e/%2e%2e/etc/passwd", "/../etc/passwd",
            ] {
                let response = try await client.request(.get, path)
                #expect((400..<500).contains(response.status.code), "\(path) → \(response.status)")
                #expect(!String(buffer: response.body).contains("root:"))
            }
        }
    }
}
