import Foundation

extension Endpoint {
    /// Every REST operation the SDK calls. A test compares this list with `Public/openapi.yaml`,
    /// both ways: an operation the document adds without an SDK call, or an SDK call the document
    /// lacks, fails it.
    public static let all: [Endpoint] =
        [
            .healthz, .readyz, .metrics, .limits, .login, .logout, .me,
            .signInOptions, .oidcStart, .oidcCallback,
            .users, .createUser, .updateUser,
            .decks, .uploadDeck, .deck, .updateDeck, .deleteDeck, .deckPDF, .deckPDFHead,
            .folders, .createFolder, .updateFolder, .deleteFolder,
            .deckQuestions, .addDeckQuestion, .updateDeckQuestion, .deleteDeckQuestion,
            .blob, .blobHead, .job,
            .videos, .uploadVideo, .video, .updateVideo, .deleteVideo, .setVideoClip,
            .captionTracks, .captionTrack, .putCaptionTrack, .deleteCaptionTrack, .editCaptionCue,
            .liveSessions, .startSession, .session, .updateSession, .endSession, .history,
            .sessionDownload, .sessionDownloadHead, .sessionNotes, .putSessionNote, .sessionNotesMarkdown,
            .sessionReplay, .sessionHosts, .addSessionHost, .removeSessionHost,
            .openRoom, .addRoomDeck, .roomVideos, .uploadRoomVideo, .exportPDF,
            .report, .reportFile,
            .storyboards, .createStoryboard, .storyboard, .updateStoryboard, .deleteStoryboard,
            .storyboardEditors, .inviteStoryboardEditor, .removeStoryboardEditor,
            .storyboardExports, .createStoryboardExport, .storyboardExport, .storyboardExportFile,
            .presentStoryboard, .shotVersions, .shotVersion, .uploadStoryboardImage,
            .channelMe, .channelNew, .channelNewSeen, .channelShare, .channelShareHead, .signedStream,
            .channelFavourites, .addChannelFavourite, .removeChannelFavourite, .channelContinue, .channelPosition,
            .channelPlaceDirections, .putChannelPlaceImage, .deleteChannelPlaceImage, .channelMap, .putVenueImage,
            .deleteVenueImage, .tile, .channelQuizAttempt,
            .channelRadioStream, .channelRadioEvents, .channelRadioTracks, .uploadChannelRadioTrack,
            .orderChannelRadioTracks, .updateChannelRadioTrack, .deleteChannelRadioTrack,
            .channelVideoLibrary, .channelVideoStream, .channelVideoCategoryVideos,
            .resumableUploadOptions, .createResumableUpload, .resumableUploadHead, .resumableUpload,
            .patchResumableUpload, .deleteResumableUpload,
        ] + channelCollections + accountLinks + lti + recordingEndpoints + replayExportEndpoints

    /// The sockets (documented in docs/protocol.md, not operations of the OpenAPI document).
    public static let sockets: [Endpoint] = [.live, .lobby, .storyboardLive]
}
