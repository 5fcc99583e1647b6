import Foundation
import NIOCore
import NIOHTTP1

/// Viewers who arrive while the session runs, one at a time, spread over the publishing phase.
/// For each: TCP connect, upgrade and hello until the welcome (nchan: until subscribed), and
/// (Podium) from the hello until the current page's image has been fetched whole, as a phone
/// does before it can show anything. They stay connected and are left out of the delivery figures.
enum LateJoin {
    struct Results: Sendable {
        /// Seconds from connect to welcome (nchan: to the 101).
        var welcome: [Double] = []
        /// Seconds from hello to the last byte of the page image.
        var image: [Double] = []
        var failed = 0
        var imageFailed = 0
        var imageBytes: [Int] = []
        var firstError: String?
    }

    /// A welcome, and when it came (µs, `Clock`).
    struct Welcome: Sendable {
        var helloAt: UInt64
        var welcomeAt: UInt64
        var json: [UInt8]
    }

    static func run(
        count: Int, seconds: Double, url: WebSocketURL, podium: Bool, rendition: String, loop: any EventLoop
    ) async -> (Results, [any Channel]) {
        var results = Results()
        var channels: [any Channel] = []
        guard count > 0 else { return (results, channels) }
        let start = Clock.seconds()
        for index in 0..<count {
            let due = start + (Double(index) + 0.5) * seconds / Double(count)
            let wait = due - Clock.seconds()
            if wait > 0 { try? await Task.sleep(for: .microseconds(Int(wait * 1e6))) }
            do {
                let connectAt = Clock.micros()
                let promise = loop.makePromise(of: Welcome.self)
                loop.scheduleTask(in: .seconds(10)) {
                    promise.fail(LoadError(podium ? "no welcome within 10 s" : "not subscribed within 10 s"))
                }
                let channel = try await WebSocketClient.connect(url, on: loop) {
                    LateJoinReceiver(podium: podium, promise: promise)
                }.get()
                channels.append(channel)
                let welcome = try await promise.futureResult.get()
                results.welcome.append(Double(welcome.welcomeAt - connectAt) / 1e6)
                guard podium else { continue }
                do {
                    let path = try imagePath(welcome: welcome.json, rendition: rendition)
                    let connection = try await HTTPConnection.connect(host: url.host, port: url.port, on: loop)
                    defer { connection.close() }
                    let response = try await connection.request(.GET, path, close: true)
                    let doneAt = Clock.micros()
                    guard response.status == 200, response.bodyBytes > 0 else {
                        throw LoadError("GET \(path): status \(response.status), \(response.bodyBytes) bytes")
                    }
                    results.image.append(Double(doneAt - welcome.helloAt) / 1e6)
                    results.imageBytes.append(response.bodyBytes)
                } catch {
                    results.imageFailed += 1
                    results.firstError = results.firstError ?? "\(error)"
                }
            } catch {
                results.failed += 1
                results.firstError = results.firstError ?? "\(error)"
            }
        }
        return (results, channels)
    }

    /// The URL of the current page's image in `rendition` (`mediumUrl`, `imageUrl` or
    /// `thumbnailUrl`), from the welcome's snapshot and session.
    static func imagePath(welcome: [UInt8], rendition: String) throws -> String {
        guard let object = try JSONSerialization.jsonObject(with: Data(welcome)) as? [String: Any],
            let snapshot = object["snapshot"] as? [String: Any], let page = snapshot["page"] as? Int,
            let session = object["session"] as? [String: Any], let pages = session["pages"] as? [[String: Any]],
            let info = pages.first(where: { $0["number"] as? Int == page })
        else { throw LoadError("welcome without the current page's images") }
        guard let path = info[rendition] as? String ?? info["imageUrl"] as? String else {
            throw LoadError("page \(page) has no \(rendition)")
        }
        return path
    }

    struct LateJoinReceiver: FrameReceiver {
        let podium: Bool
        let promise: EventLoopPromise<Welcome>
        private var helloAt: UInt64 = 0

        init(podium: Bool, promise: EventLoopPromise<Welcome>) {
            self.podium = podium
            self.promise = promise
        }

        mutating func opened(now: UInt64, context: ChannelHandlerContext) -> FrameAction {
            if podium {
                helloAt = Clock.micros()
                let hello = OutgoingFrame.text(#"{"type":"hello","role":"viewer"}"#, allocator: context.channel.allocator)
                context.writeAndFlush(NIOAny(hello), promise: nil)
            } else {
                promise.succeed(Welcome(helloAt: now, welcomeAt: now, json: []))
            }
            return .proceed
        }

        func text(_ payload: UnsafeRawBufferPointer, now: UInt64, context: ChannelHandlerContext) -> FrameAction {
            if podium, case .welcome = Wire.messageType(payload) {
                promise.succeed(Welcome(helloAt: helloAt, welcomeAt: now, json: Array(payload)))
            }
            return .proceed
        }

        func closed(upgraded: Bool) {
            promise.fail(LoadError(upgraded ? "closed before the welcome" : "upgrade refused"))
        }
    }
}
