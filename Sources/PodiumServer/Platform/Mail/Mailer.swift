import Foundation
import Logging

/// Sends the accounts' messages in the background: a request that sends mail answers at once,
/// and a slow or absent relay never holds it up. What became of a message is told to `done`
/// (nil: the relay took it; else why not), which records it where an admin sees it, and logged.
///
/// Without a relay (`--smtp-url` unset) nothing is sent: `isConfigured` is false and the admin is
/// shown each link to pass on by hand.
struct Mailer: Sendable {
    let client: SMTPClient?
    let logger: Logger

    init(relay: SMTPRelay?, from: String, logger: Logger) {
        client = relay.map { SMTPClient(relay: $0, from: from) }
        self.logger = logger
    }

    var isConfigured: Bool { client != nil }

    func send(_ message: MailMessage, done: @escaping @Sendable (_ failure: String?) async -> Void = { _ in }) {
        guard let client else { return }
        let logger = self.logger
        Task {
            do {
                try await client.send(message)
                logger.info("mail sent", metadata: ["to": "\(message.to)", "subject": "\(message.subject)"])
                await done(nil)
            } catch {
                let reason = (error as? SMTPError)?.description ?? "\(error)"
                logger.error("mail not sent", metadata: ["to": "\(message.to)", "reason": "\(reason)"])
                await done(String(reason.prefix(300)))
            }
        }
    }
}
