import Foundation
import Hummingbird
import Logging
import PodiumMedia
import PodiumStore

/// The web: the middleware every request passes, the static client and its pages, `/healthz`
/// and `/readyz`, and the limits a client checks before it uploads.
struct WebFeature: ServerFeature {
    /// In the order a request passes them. They apply to the routes added after them, so they
    /// are added before every feature's routes.
    let middlewares: [any MiddlewareProtocol<Request, Response, AppRequestContext>]
    let web: WebController
    let readiness: Readiness
    let limits: LimitsController

    init(_ platform: Platform) {
        let configuration = platform.configuration
        middlewares = [
            FormQueryMiddleware(),
            // Outside the security headers' middleware, which turns errors into answers: the
            // resumable uploads' header on every answer under /api/v1/uploads, refusals included.
            TusHeadersMiddleware(),
            SecurityHeadersMiddleware(),
            DeadEndMiddleware(webRoot: configuration.webRoot),
            FileMiddleware(
                configuration.webRoot.path, cacheControl: .init([(MediaType(type: .any), [.noCache])]), logger: platform.logger),
            AuthMiddleware(accounts: platform.accounts, trustedProxies: configuration.trustedProxies),
        ]
        web = WebController(
            webRoot: configuration.webRoot, vendorRoots: configuration.vendorRoots, blobs: platform.blobs,
            store: platform.stores.sessions, deckStore: platform.stores.decks)
        readiness = Readiness(store: platform.stores.health, timeout: configuration.readinessTimeout)
        limits = LimitsController(
            limits: .init(
                maxUploadBytes: configuration.maxUploadBytes, maxVideoUploadBytes: configuration.maxVideoUploadBytes,
                maxVideoSeconds: Int(configuration.videoLimits.maxDuration.components.seconds)))
    }

    func addMiddlewares(to router: Router<AppRequestContext>) {
        for middleware in middlewares { router.middlewares.add(middleware) }
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        web.addRoutes(to: router)
        readiness.addRoutes(to: router)
        limits.addRoutes(to: api)
    }
}
