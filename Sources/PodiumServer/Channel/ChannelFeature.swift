import Foundation
import Hummingbird
import Logging
import PodiumMedia
import PodiumStore
import ServiceLifecycle

/// The channel (seed 004): videos, radio stations, places on a map and quizzes, published to
/// members and the public, with the admin's routes beside the viewers'. Every channel route knows
/// its viewer; streams are per-person URLs (signed with the platform's ``StreamTokens``), served by
/// the source of their kind at `/stream/<token>/<file>`.
struct ChannelFeature: ServerFeature {
    /// The channel's long work (a radio track's packaging), built before the job queue that runs
    /// it, with the radio's schedules it reloads when a track becomes ready.
    struct Workers {
        /// The radio's schedules, in memory.
        let radioStations: RadioStations
        let audioPackager: AudioPackager
        let radioTrack: RadioTrackWorker

        var all: [any JobWorker] { [radioTrack] }

        init(
            configuration: ServerConfiguration, store: any ChannelRadioStore, blobs: any BlobStore, logger: Logger,
            now: @escaping @Sendable () -> Date
        ) {
            let radioStations = RadioStations(store: store, now: now, logger: logger)
            self.radioStations = radioStations
            audioPackager = AudioPackager(limits: configuration.videoLimits, runner: configuration.toolRunner, logger: logger)
            radioTrack = RadioTrackWorker(
                store: store, blobs: blobs, packager: audioPackager, workRoot: configuration.temporaryDirectory,
                logger: logger, now: now,
                tracksChanged: { id in
                    do { try await radioStations.reload(id) } catch { logger.error("radio \(id): could not reload: \(error)") }
                })
        }
    }

    /// The map's offline basemap: optional, so a missing or broken file only says so.
    let tiles: TileSet?
    let tileRoutes: TileController
    let channel: ChannelController
    let videoAdmin: ChannelVideoAdminController
    let videos: ChannelVideoController
    let places: ChannelPlaceController
    let quizzes: ChannelQuizController
    let radio: ChannelRadioController
    let radioListening: RadioListening
    let feed: ChannelFeedController
    let sharePages: SharePageController
    let streams: StreamController

    /// - Parameter otherStreams: the stream sources of other features (the library's clips),
    ///   served beside the channel's at `/stream/<token>/<file>`.
    init(_ platform: Platform, workers: Workers, otherStreams: [String: any StreamSource]) async throws {
        let configuration = platform.configuration
        let (stores, blobs, now, logger) = (platform.stores, platform.blobs, platform.now, platform.logger)
        var tiles: TileSet?
        if let file = configuration.basemapFile {
            do {
                tiles = try await TileSet.open(path: file.path, logger: logger)
            } catch {
                logger.notice("the channel map has no basemap: \(error)")
            }
        }
        self.tiles = tiles
        tileRoutes = TileController(tiles: tiles)
        channel = ChannelController(configuration: configuration.channel)
        let channelVideoBlobs = ChannelVideoBlobSets(now: now)
        videoAdmin = ChannelVideoAdminController(
            store: stores.channelVideos, videoStore: stores.videos, blobSets: channelVideoBlobs, now: now)
        videos = ChannelVideoController(
            store: stores.channelVideos, tokens: platform.streamTokens, configuration: configuration.channel, now: now)
        places = ChannelPlaceController(
            store: stores.channelPlaces, blobs: blobs, channel: configuration.channel,
            uploadDirectory: configuration.temporaryDirectory,
            tiles: tiles, now: now)
        quizzes = ChannelQuizController(store: stores.channelQuizzes, channel: configuration.channel, now: now)
        let radioStations = workers.radioStations
        try await radioStations.load()
        radioListening = RadioListening(
            store: stores.channelRadio, allowance: configuration.channel.radioDailyAllowance,
            listenersPerAddress: configuration.channel.radioListenersPerAddress, timeZone: configuration.channel.timeZone,
            logger: logger, now: now)
        radio = ChannelRadioController(
            store: stores.channelRadio, stations: radioStations, listening: radioListening, tokens: platform.streamTokens,
            jobs: platform.jobs, blobs: blobs, packager: workers.audioPackager, uploadDirectory: configuration.temporaryDirectory,
            maxUploadBytes: configuration.maxVideoUploadBytes, configuration: configuration.channel, logger: logger, now: now)
        var publications: [String: any ChannelPublications] = [:]
        publications["video"] = ChannelVideoPublications(store: stores.channelVideos)
        publications["place"] = ChannelPlacePublications(store: stores.channelPlaces)
        publications["quiz"] = ChannelQuizPublications(store: stores.channelQuizzes)
        publications[RadioStreamSource.kind] = RadioPublications(stations: radioStations)
        feed = ChannelFeedController(store: stores.channelSettings, parts: publications, now: now)
        sharePages = SharePageController(
            parts: publications, channelName: configuration.channel.name, publicURL: configuration.publicURL)
        var streamSources = otherStreams
        streamSources[RadioStreamSource.kind] = RadioStreamSource(
            stations: radioStations, listening: radioListening, blobs: blobs, configuration: configuration.channel, now: now)
        streamSources["video"] = VideoStreamSource(
            store: stores.channelVideos, videoStore: stores.videos, blobs: blobs, blobSets: channelVideoBlobs,
            captions: CaptionStreams(store: stores.captions))
        streams = StreamController(tokens: platform.streamTokens, sources: streamSources)
    }

    /// The radio's listening time, counted and saved while the node runs.
    var services: [any Service] { [radioListening] }

    /// Closes the basemap when the application stops.
    var basemapServices: [any Service] {
        [tiles.map { CloseOnShutdown(name: "basemap", close: $0.close) as any Service }].compactMap { $0 }
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        tileRoutes.addRoutes(to: router)
        let channelAPI = api.group("channel").add(middleware: ChannelViewerMiddleware())
        channel.addRoutes(to: channelAPI)
        // Admin routes first: their constant paths (`videos/order`, `videos/library`) must not be
        // read as a video id.
        videoAdmin.addRoutes(to: channelAPI)
        videos.addRoutes(to: channelAPI)
        places.addRoutes(to: channelAPI)
        quizzes.addRoutes(to: channelAPI)
        radio.addRoutes(to: channelAPI)
        feed.addRoutes(to: channelAPI)
        sharePages.addRoutes(to: router)
        streams.addRoutes(to: router.group("stream").add(middleware: ChannelViewerMiddleware()))
    }
}
