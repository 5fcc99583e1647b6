import Foundation
import PodiumWire

extension Endpoint {
    public static let login = Endpoint("POST", "/api/v1/auth/login")
    public static let logout = Endpoint("POST", "/api/v1/auth/logout")
    public static let me = Endpoint("GET", "/api/v1/me")
    public static let healthz = Endpoint("GET", "/healthz")
    public static let readyz = Endpoint("GET", "/readyz")
    public static let metrics = Endpoint("GET", "/metrics")
    public static let limits = Endpoint("GET", "/api/v1/limits")
}

extension PodiumClient {
    /// Signs in and keeps the token for the calls that follow; returns the account.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> User {
        struct Body: Encodable {
            let email: String
            let password: String
        }
        let reply = try await call(.login, json: Body(email: email, password: password), as: LoginResponse.self)
        token = reply.token
        return reply.user
    }

    /// Ends the token on the server and forgets it here.
    public func signOut() async throws {
        try await callIgnoringReply(.logout)
        token = nil
    }

    /// The signed-in account (`401 unauthorized` when the token is not valid).
    public func me() async throws -> User {
        try await call(.me)
    }

    /// `true` when the process is up (`GET /healthz`).
    public func isHealthy() async throws -> Bool {
        (try? await bytes(.healthz)) != nil
    }

    /// Whether the server can serve (its database answers): `true` when `GET /readyz` says
    /// `ready`; a server that cannot serve answers 503, thrown as ``PodiumError`` (`store_unavailable`).
    public func readiness() async throws -> Bool {
        struct Ready: Decodable { let status: String }
        let reply: Ready = try await call(.readyz)
        return reply.status == "ready"
    }

    /// The Prometheus text exposition (`GET /metrics`), from a client whose base URL is the
    /// node's metrics address (`--metrics-address`, `http://127.0.0.1:9464` by default; the main
    /// port answers 404), with the metrics token (`PODIUM_METRICS_TOKEN`) as `token` if one is set.
    public func metricsText() async throws -> String {
        String(decoding: try await bytes(.metrics), as: UTF8.self)
    }

    public func limits() async throws -> Limits {
        try await call(.limits)
    }
}
