/// How far an ingest has come, reported while it runs.
///
/// `stage` is one of `"inspecting"`, `"rendering"` and `"text"`; callers may use other stages of their own
/// (a queue's `"queued"`, say). `done` counts up to `total` within a stage: checks while inspecting, images
/// written while rendering (three per page), pages while extracting text.
public struct IngestProgress: Sendable, Equatable {
    /// The current stage: `"inspecting"`, `"rendering"` or `"text"`.
    public var stage: String
    /// Units of work finished in this stage.
    public var done: Int
    /// Units of work in this stage.
    public var total: Int

    /// Creates a progress report.
    public init(stage: String, done: Int, total: Int) {
        self.stage = stage
        self.done = done
        self.total = total
    }
}
