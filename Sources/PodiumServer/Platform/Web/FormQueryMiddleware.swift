import Foundation
import Hummingbird

/// Reads a `+` in a query string as a space, as HTML forms and the browser's `URLSearchParams`
/// write one (`?search=sirloin+cream`), for every route at once. Hummingbird's
/// `queryParameters` decodes percent escapes only, so without this a multi-word search from a
/// page found nothing and an upload's `?title=My+talk` kept its plus signs. A `+` meant as a plus
/// arrives as `%2B`, which still decodes to `+`. The path is left alone: there `+` is a plus.
struct FormQueryMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        guard let rewritten = Self.rewrite(request.head.path) else { return try await next(request, context) }
        var head = request.head
        head.path = rewritten
        return try await next(Request(head: head, body: request.body), context)
    }

    /// The request target with every `+` of its query as `%20`, or nil when there is none.
    static func rewrite(_ target: String?) -> String? {
        guard let target, let question = target.firstIndex(of: "?") else { return nil }
        let query = target[target.index(after: question)...]
        guard query.contains("+") else { return nil }
        return String(target[...question]) + query.replacingOccurrences(of: "+", with: "%20")
    }
}
