import Foundation
import Hummingbird
import NIOCore
import PodiumCore

/// A non-member met one of the channel's limits: 403 with which limit, why, and how to become a
/// member, so a page shows a message instead of a broken player.
///
/// `{"error":{"code":"membership_required","limit":"radio_daily","message":"…","join":"…","joinUrl":null}}`
struct ChannelLimitError: PodiumErrorBody, Sendable {
    let limit: ChannelLimit
    let join: String
    let joinURL: String?

    init(_ limit: ChannelLimit, configuration: ChannelConfiguration) {
        self.limit = limit
        join = configuration.membershipInfo
        joinURL = configuration.membershipURL
    }

    var status: HTTPResponse.Status { .forbidden }

    struct Body: Encodable {
        struct Detail: Encodable {
            let code: String
            let limit: String
            let message: String
            let join: String
            let joinUrl: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(code, forKey: .code)
                try container.encode(limit, forKey: .limit)
                try container.encode(message, forKey: .message)
                try container.encode(join, forKey: .join)
                try container.encode(joinUrl, forKey: .joinUrl)  // null when there is none, as documented
            }

            enum CodingKeys: String, CodingKey { case code, limit, message, join, joinUrl }
        }
        let error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(
            error: .init(
                code: "membership_required", limit: limit.rawValue, message: limit.explanation, join: join, joinUrl: joinURL))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "private, no-store"
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(body))))
    }
}
