extension Migrations {
    /// Migration 17: the channel's video catalogue. The same tables on both databases but for the
    /// types of dates and flags; PostgreSQL checks a sub-category's parent at commit, so a copy
    /// from SQLite may insert a sub-category before its parent.
    static func channelVideoTables(date: String, flag: String, deferred: String) -> [String] {
        [
            """
            CREATE TABLE channel_video_categories (
              id TEXT PRIMARY KEY,
              parent_id TEXT REFERENCES channel_video_categories(id) ON DELETE RESTRICT\(deferred),
              name TEXT NOT NULL, position INTEGER NOT NULL, updated_at \(date) NOT NULL, archived_at \(date))
            """,
            "CREATE INDEX channel_video_categories_parent ON channel_video_categories(parent_id, position)",
            """
            CREATE TABLE channel_videos (
              id TEXT PRIMARY KEY, video_id TEXT NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
              category_id TEXT NOT NULL REFERENCES channel_video_categories(id) ON DELETE RESTRICT\(deferred),
              subcategory_id TEXT REFERENCES channel_video_categories(id) ON DELETE RESTRICT\(deferred),
              title TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', chapters TEXT NOT NULL DEFAULT '[]',
              free \(flag) NOT NULL, promoted \(flag) NOT NULL, position INTEGER NOT NULL, published_at \(date),
              created_at \(date) NOT NULL, updated_at \(date) NOT NULL, archived_at \(date))
            """,
            "CREATE INDEX channel_videos_category ON channel_videos(category_id, position)",
            "CREATE INDEX channel_videos_published ON channel_videos(published_at)",
            "CREATE INDEX channel_videos_video ON channel_videos(video_id)",
            """
            CREATE TABLE channel_favourites (
              viewer_key TEXT NOT NULL,
              channel_video_id TEXT NOT NULL REFERENCES channel_videos(id) ON DELETE CASCADE,
              created_at \(date) NOT NULL, PRIMARY KEY (viewer_key, channel_video_id))
            """,
            "CREATE INDEX channel_favourites_video ON channel_favourites(channel_video_id)",
            """
            CREATE TABLE channel_positions (
              viewer_key TEXT NOT NULL,
              channel_video_id TEXT NOT NULL REFERENCES channel_videos(id) ON DELETE CASCADE,
              seconds DOUBLE PRECISION NOT NULL, duration DOUBLE PRECISION NOT NULL, updated_at \(date) NOT NULL,
              PRIMARY KEY (viewer_key, channel_video_id))
            """,
            "CREATE INDEX channel_positions_recent ON channel_positions(viewer_key, updated_at)",
            "CREATE INDEX channel_positions_video ON channel_positions(channel_video_id)",
        ]
    }
}
