import Foundation
import Logging
import SQLKit

/// Versioned schema changes, applied in order before the server accepts requests and recorded in
/// `podium_migrations`. Never edit a shipped migration: add the next one.
///
/// The same versions on SQLite and PostgreSQL. Where the SQL differs a migration has PostgreSQL
/// statements of its own: dates are `TIMESTAMPTZ` there (SQLite keeps seconds since 1970 as REAL;
/// the code binds `Date` on both), flags `BOOLEAN` (SQLite's INTEGER 0/1; the code binds `Bool`),
/// and a column is altered where SQLite rebuilds the table.
enum Migrations {
    struct Migration {
        let version: Int
        let name: String
        /// SQLite's statements.
        let statements: [String]
        /// PostgreSQL's statements; nil when they are the same as SQLite's.
        var postgres: [String]? = nil
        /// SQLite rebuilds a table to change a column; other tables' references to it must not
        /// be checked (or cascade) while the old one is dropped. Checked again before commit.
        var rebuildsTables = false
    }

    static let all: [Migration] = [
        Migration(
            version: 1, name: "library and live sessions",
            statements: [
                """
                CREATE TABLE users (
                  id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, role TEXT NOT NULL,
                  password_hash TEXT NOT NULL, created_at REAL NOT NULL)
                """,
                """
                CREATE TABLE auth_tokens (
                  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  expires_at REAL NOT NULL)
                """,
                """
                CREATE TABLE folders (
                  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  name TEXT NOT NULL, created_at REAL NOT NULL)
                """,
                """
                CREATE TABLE decks (
                  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL, title TEXT NOT NULL,
                  status TEXT NOT NULL, source_hash TEXT NOT NULL, source_bytes INTEGER NOT NULL,
                  page_count INTEGER NOT NULL, error_code TEXT, error_message TEXT, created_at REAL NOT NULL)
                """,
                "CREATE INDEX decks_owner ON decks(owner_id, created_at)",
                """
                CREATE TABLE pages (
                  deck_id TEXT NOT NULL REFERENCES decks(id) ON DELETE CASCADE, number INTEGER NOT NULL,
                  width REAL NOT NULL, height REAL NOT NULL, text TEXT NOT NULL, large_image TEXT NOT NULL,
                  medium_image TEXT NOT NULL, thumbnail_image TEXT NOT NULL, PRIMARY KEY (deck_id, number))
                """,
                """
                CREATE TABLE sessions (
                  id TEXT PRIMARY KEY, code TEXT NOT NULL, deck_id TEXT NOT NULL REFERENCES decks(id),
                  presenter_id TEXT NOT NULL REFERENCES users(id), passcode_hash TEXT,
                  allow_download INTEGER NOT NULL, created_at REAL NOT NULL, ended_at REAL)
                """,
                // A code is unique among live sessions; ended ones keep theirs for links and reports.
                "CREATE UNIQUE INDEX sessions_live_code ON sessions(code) WHERE ended_at IS NULL",
                "CREATE INDEX sessions_code ON sessions(code, created_at)",
                """
                CREATE TABLE session_events (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
                  type TEXT NOT NULL, body TEXT NOT NULL, command_id TEXT, created_at REAL NOT NULL,
                  PRIMARY KEY (session_id, seq))
                """,
            ],
            postgres: [
                """
                CREATE TABLE users (
                  id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, role TEXT NOT NULL,
                  password_hash TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL)
                """,
                """
                CREATE TABLE auth_tokens (
                  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  expires_at TIMESTAMPTZ NOT NULL)
                """,
                """
                CREATE TABLE folders (
                  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  name TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL)
                """,
                """
                CREATE TABLE decks (
                  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL, title TEXT NOT NULL,
                  status TEXT NOT NULL, source_hash TEXT NOT NULL, source_bytes BIGINT NOT NULL,
                  page_count INTEGER NOT NULL, error_code TEXT, error_message TEXT, created_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX decks_owner ON decks(owner_id, created_at)",
                """
                CREATE TABLE pages (
                  deck_id TEXT NOT NULL REFERENCES decks(id) ON DELETE CASCADE, number INTEGER NOT NULL,
                  width DOUBLE PRECISION NOT NULL, height DOUBLE PRECISION NOT NULL, text TEXT NOT NULL,
                  large_image TEXT NOT NULL, medium_image TEXT NOT NULL, thumbnail_image TEXT NOT NULL,
                  PRIMARY KEY (deck_id, number))
                """,
                """
                CREATE TABLE sessions (
                  id TEXT PRIMARY KEY, code TEXT NOT NULL, deck_id TEXT NOT NULL REFERENCES decks(id),
                  presenter_id TEXT NOT NULL REFERENCES users(id), passcode_hash TEXT,
                  allow_download BOOLEAN NOT NULL, created_at TIMESTAMPTZ NOT NULL, ended_at TIMESTAMPTZ)
                """,
                "CREATE UNIQUE INDEX sessions_live_code ON sessions(code) WHERE ended_at IS NULL",
                "CREATE INDEX sessions_code ON sessions(code, created_at)",
                """
                CREATE TABLE session_events (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
                  type TEXT NOT NULL, body TEXT NOT NULL, command_id TEXT, created_at TIMESTAMPTZ NOT NULL,
                  PRIMARY KEY (session_id, seq))
                """,
            ]),
        Migration(
            version: 2, name: "audience interaction",
            statements: [
                // Answers live beside the event log: one row per viewer and poll, replaced when
                // the viewer changes their mind. `first_answered_at` orders open answers.
                """
                CREATE TABLE poll_answers (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, poll_id INTEGER NOT NULL,
                  viewer_id TEXT NOT NULL, answer TEXT NOT NULL, first_answered_at REAL NOT NULL, updated_at REAL NOT NULL,
                  PRIMARY KEY (session_id, poll_id, viewer_id))
                """,
                """
                CREATE TABLE audience_questions (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, id TEXT NOT NULL, text TEXT NOT NULL,
                  page INTEGER, anonymous INTEGER NOT NULL, viewer_id TEXT NOT NULL, name TEXT, asked_at REAL NOT NULL,
                  answered INTEGER NOT NULL, PRIMARY KEY (session_id, id))
                """,
                """
                CREATE TABLE session_viewers (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, viewer_id TEXT NOT NULL,
                  number INTEGER NOT NULL, name TEXT, first_seen REAL NOT NULL, PRIMARY KEY (session_id, viewer_id))
                """,
            ],
            postgres: [
                """
                CREATE TABLE poll_answers (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, poll_id INTEGER NOT NULL,
                  viewer_id TEXT NOT NULL, answer TEXT NOT NULL, first_answered_at TIMESTAMPTZ NOT NULL,
                  updated_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (session_id, poll_id, viewer_id))
                """,
                """
                CREATE TABLE audience_questions (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, id TEXT NOT NULL, text TEXT NOT NULL,
                  page INTEGER, anonymous BOOLEAN NOT NULL, viewer_id TEXT NOT NULL, name TEXT, asked_at TIMESTAMPTZ NOT NULL,
                  answered BOOLEAN NOT NULL, PRIMARY KEY (session_id, id))
                """,
                """
                CREATE TABLE session_viewers (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, viewer_id TEXT NOT NULL,
                  number INTEGER NOT NULL, name TEXT, first_seen TIMESTAMPTZ NOT NULL, PRIMARY KEY (session_id, viewer_id))
                """,
            ]),
        Migration(
            version: 3, name: "question banks",
            statements: [
                """
                CREATE TABLE deck_questions (
                  id TEXT PRIMARY KEY, deck_id TEXT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
                  position INTEGER NOT NULL, poll TEXT NOT NULL, created_at REAL NOT NULL)
                """,
                "CREATE INDEX deck_questions_deck ON deck_questions(deck_id, position)",
            ],
            postgres: [
                """
                CREATE TABLE deck_questions (
                  id TEXT PRIMARY KEY, deck_id TEXT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
                  position INTEGER NOT NULL, poll TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX deck_questions_deck ON deck_questions(deck_id, position)",
            ]),
        Migration(
            version: 4, name: "viewer notes and attendance",
            statements: [
                """
                CREATE TABLE viewer_notes (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, viewer_id TEXT NOT NULL,
                  page INTEGER NOT NULL, text TEXT NOT NULL, updated_at REAL NOT NULL,
                  PRIMARY KEY (session_id, viewer_id, page))
                """,
                """
                CREATE TABLE attendance (
                  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                  viewer_id TEXT NOT NULL, joined_at REAL NOT NULL, left_at REAL)
                """,
                "CREATE INDEX attendance_session ON attendance(session_id, joined_at)",
            ],
            postgres: [
                """
                CREATE TABLE viewer_notes (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, viewer_id TEXT NOT NULL,
                  page INTEGER NOT NULL, text TEXT NOT NULL, updated_at TIMESTAMPTZ NOT NULL,
                  PRIMARY KEY (session_id, viewer_id, page))
                """,
                """
                CREATE TABLE attendance (
                  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                  viewer_id TEXT NOT NULL, joined_at TIMESTAMPTZ NOT NULL, left_at TIMESTAMPTZ)
                """,
                "CREATE INDEX attendance_session ON attendance(session_id, joined_at)",
            ]),
        Migration(
            version: 5, name: "public questions",
            statements: [
                "ALTER TABLE audience_questions ADD COLUMN approved INTEGER NOT NULL DEFAULT 0",
                """
                CREATE TABLE question_votes (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, question_id TEXT NOT NULL,
                  viewer_id TEXT NOT NULL, PRIMARY KEY (session_id, question_id, viewer_id))
                """,
            ],
            postgres: [
                "ALTER TABLE audience_questions ADD COLUMN approved BOOLEAN NOT NULL DEFAULT FALSE",
                """
                CREATE TABLE question_votes (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, question_id TEXT NOT NULL,
                  viewer_id TEXT NOT NULL, PRIMARY KEY (session_id, question_id, viewer_id))
                """,
            ]),
        Migration(
            version: 6, name: "rooms",
            statements: [
                """
                CREATE TABLE sessions_new (
                  id TEXT PRIMARY KEY, code TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'session', title TEXT,
                  deck_id TEXT REFERENCES decks(id), presenter_id TEXT NOT NULL REFERENCES users(id), passcode_hash TEXT,
                  allow_download INTEGER NOT NULL, created_at REAL NOT NULL, ended_at REAL)
                """,
                """
                INSERT INTO sessions_new (id, code, deck_id, presenter_id, passcode_hash, allow_download, created_at, ended_at)
                SELECT id, code, deck_id, presenter_id, passcode_hash, allow_download, created_at, ended_at FROM sessions
                """,
                "DROP TABLE sessions",
                "ALTER TABLE sessions_new RENAME TO sessions",
                "CREATE UNIQUE INDEX sessions_live_code ON sessions(code) WHERE ended_at IS NULL",
                "CREATE INDEX sessions_code ON sessions(code, created_at)",
            ],
            postgres: [
                // PostgreSQL alters in place what SQLite rebuilds (the column order differs; every
                // query names its columns or decodes them by name).
                "ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'session'",
                "ALTER TABLE sessions ADD COLUMN title TEXT",
                "ALTER TABLE sessions ALTER COLUMN deck_id DROP NOT NULL",
            ],
            rebuildsTables: true),
        Migration(
            version: 7, name: "commands of the one pipeline",
            statements: [
                // Commands that change only what the audience contributed (answers, questions,
                // votes) store no event: their ids are kept here, so a retry after a restart
                // still counts once. A unique (session, command) is what several nodes rely on.
                """
                CREATE TABLE session_commands (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, command_id TEXT NOT NULL,
                  seq INTEGER NOT NULL, created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (session_id, command_id))
                """
            ],
            postgres: [
                """
                CREATE TABLE session_commands (
                  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, command_id TEXT NOT NULL,
                  seq INTEGER NOT NULL, created_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (session_id, command_id))
                """
            ]),
        Migration(
            version: 8, name: "job queue",
            statements: [
                // Ids and JSON as TEXT; dates as seconds since 1970 on SQLite (DOUBLE PRECISION is
                // its REAL), TIMESTAMPTZ on PostgreSQL like every other table there.
                """
                CREATE TABLE jobs (
                  id TEXT PRIMARY KEY, kind TEXT NOT NULL, subject_id TEXT NOT NULL, payload TEXT NOT NULL,
                  state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                  progress_stage TEXT NOT NULL DEFAULT 'queued', progress_done INTEGER NOT NULL DEFAULT 0,
                  progress_total INTEGER NOT NULL DEFAULT 0, error_code TEXT, error_message TEXT,
                  owner_id TEXT REFERENCES users(id) ON DELETE CASCADE, created_at DOUBLE PRECISION NOT NULL,
                  updated_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX jobs_queue ON jobs(kind, state, created_at)",
                "CREATE INDEX jobs_subject ON jobs(subject_id)",
                // Decks an older server left processing had no job: they get one, and are
                // processed at this start as they were before.
                """
                INSERT INTO jobs (id, kind, subject_id, payload, state, attempts, owner_id, created_at, updated_at)
                SELECT 'j_' || id, 'pdf', id, '{"useDocumentTitle":false}', 'queued', 0, owner_id, created_at, created_at
                FROM decks WHERE status = 'processing'
                """,
            ],
            postgres: [
                """
                CREATE TABLE jobs (
                  id TEXT PRIMARY KEY, kind TEXT NOT NULL, subject_id TEXT NOT NULL, payload TEXT NOT NULL,
                  state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                  progress_stage TEXT NOT NULL DEFAULT 'queued', progress_done INTEGER NOT NULL DEFAULT 0,
                  progress_total INTEGER NOT NULL DEFAULT 0, error_code TEXT, error_message TEXT,
                  owner_id TEXT REFERENCES users(id) ON DELETE CASCADE, created_at TIMESTAMPTZ NOT NULL,
                  updated_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX jobs_queue ON jobs(kind, state, created_at)",
                "CREATE INDEX jobs_subject ON jobs(subject_id)",
                """
                INSERT INTO jobs (id, kind, subject_id, payload, state, attempts, owner_id, created_at, updated_at)
                SELECT 'j_' || id, 'pdf', id, '{"useDocumentTitle":false}', 'queued', 0, owner_id, created_at, created_at
                FROM decks WHERE status = 'processing'
                """,
            ]),
        Migration(
            version: 9, name: "room decks",
            statements: [
                // A guest's upload into a room belongs to the room, not to the moderator's library.
                "ALTER TABLE decks ADD COLUMN room_id TEXT"
            ]),
        Migration(
            version: 10, name: "session privacy and history",
            statements: [
                // The passcode for the host to read out again (the hash still checks hellos), and
                // sessions left out of "Live now". Flags are INTEGER here like allow_download.
                "ALTER TABLE sessions ADD COLUMN passcode TEXT",
                "ALTER TABLE sessions ADD COLUMN unlisted INTEGER NOT NULL DEFAULT 0",
                // The library's history: a presenter's sessions, newest first.
                "CREATE INDEX sessions_presenter ON sessions(presenter_id, created_at)",
            ],
            postgres: [
                "ALTER TABLE sessions ADD COLUMN passcode TEXT",
                "ALTER TABLE sessions ADD COLUMN unlisted BOOLEAN NOT NULL DEFAULT FALSE",
                "CREATE INDEX sessions_presenter ON sessions(presenter_id, created_at)",
            ]),
        Migration(
            version: 11, name: "job leases",
            statements: [
                // Until when a running job is its node's: renewed while it runs, and a job whose
                // lease ended (its node died) is queued again. NULL while queued; a running job
                // without one (left by an older version) counts as expired.
                "ALTER TABLE jobs ADD COLUMN lease_until DOUBLE PRECISION"
            ],
            postgres: [
                "ALTER TABLE jobs ADD COLUMN lease_until TIMESTAMPTZ"
            ]),
        Migration(
            version: 12, name: "viewer numbers unique per session",
            statements: [
                // Nodes that picked numbers from their own rosters may have given one twice:
                // sessions with a duplicate are numbered again 1..N in order of number, then
                // arrival, before the index makes the store the one to give numbers.
                """
                UPDATE session_viewers SET number = (
                  SELECT renumbered.position FROM (
                    SELECT session_id, viewer_id,
                      ROW_NUMBER() OVER (PARTITION BY session_id ORDER BY number, first_seen, viewer_id) AS position
                    FROM session_viewers) AS renumbered
                  WHERE renumbered.session_id = session_viewers.session_id
                    AND renumbered.viewer_id = session_viewers.viewer_id)
                WHERE session_id IN (
                  SELECT session_id FROM session_viewers GROUP BY session_id, number HAVING COUNT(*) > 1)
                """,
                "CREATE UNIQUE INDEX session_viewers_number ON session_viewers(session_id, number)",
            ]),
        Migration(
            version: 13, name: "video library",
            statements: [
                """
                CREATE TABLE videos (
                  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL, title TEXT NOT NULL, status TEXT NOT NULL,
                  source_hash TEXT NOT NULL, source_bytes INTEGER NOT NULL, error_code TEXT, error_message TEXT,
                  duration DOUBLE PRECISION NOT NULL DEFAULT 0, width INTEGER NOT NULL DEFAULT 0,
                  height INTEGER NOT NULL DEFAULT 0, has_video INTEGER NOT NULL DEFAULT 0,
                  has_audio INTEGER NOT NULL DEFAULT 0, renditions TEXT NOT NULL DEFAULT '[]', master_playlist TEXT,
                  poster TEXT, thumbnail_sprite TEXT, thumbnail_track TEXT, mp4 TEXT, files TEXT NOT NULL DEFAULT '[]',
                  created_at REAL NOT NULL)
                """,
                "CREATE INDEX videos_owner ON videos(owner_id, created_at)",
            ],
            postgres: [
                """
                CREATE TABLE videos (
                  id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL, title TEXT NOT NULL, status TEXT NOT NULL,
                  source_hash TEXT NOT NULL, source_bytes BIGINT NOT NULL, error_code TEXT, error_message TEXT,
                  duration DOUBLE PRECISION NOT NULL DEFAULT 0, width INTEGER NOT NULL DEFAULT 0,
                  height INTEGER NOT NULL DEFAULT 0, has_video BOOLEAN NOT NULL DEFAULT FALSE,
                  has_audio BOOLEAN NOT NULL DEFAULT FALSE, renditions TEXT NOT NULL DEFAULT '[]', master_playlist TEXT,
                  poster TEXT, thumbnail_sprite TEXT, thumbnail_track TEXT, mp4 TEXT, files TEXT NOT NULL DEFAULT '[]',
                  created_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX videos_owner ON videos(owner_id, created_at)",
            ]),
        Migration(
            version: 14, name: "room videos",
            statements: [
                // A clip uploaded into a room belongs to it alone (like a guest presenter's deck).
                "ALTER TABLE videos ADD COLUMN room_id TEXT",
                "CREATE INDEX videos_room ON videos(room_id, created_at)",
            ]),
        Migration(
            version: 15, name: "nested folders and storyboards",
            statements: [
                // Folders nest; one tree holds decks, videos and storyboards.
                "ALTER TABLE folders ADD COLUMN parent_id TEXT REFERENCES folders(id) ON DELETE SET NULL"
            ] + storyboardTables(date: "REAL", bytes: "INTEGER"),
            postgres: [
                // Checked at commit: a copy from SQLite may insert a folder before its parent.
                """
                ALTER TABLE folders ADD COLUMN parent_id TEXT REFERENCES folders(id) ON DELETE SET NULL
                  DEFERRABLE INITIALLY DEFERRED
                """
            ] + storyboardTables(date: "TIMESTAMPTZ", bytes: "BIGINT")),
        Migration(
            version: 16, name: "channel membership",
            statements: [
                // A member sees all of the channel; others meet its limits (see ChannelLimit).
                "ALTER TABLE users ADD COLUMN is_member BOOLEAN NOT NULL DEFAULT FALSE",
                // Settings every node must agree on, made once by whichever node starts first
                // (the key that signs stream URLs).
                "CREATE TABLE channel_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]),
        Migration(
            version: 17, name: "channel videos",
            statements: channelVideoTables(date: "REAL", flag: "INTEGER", deferred: ""),
            postgres: channelVideoTables(date: "TIMESTAMPTZ", flag: "BOOLEAN", deferred: " DEFERRABLE INITIALLY DEFERRED")),
        radioMigration,
        Migration(
            version: 19, name: "channel places",
            statements: channelPlaceTables(date: "REAL"), postgres: channelPlaceTables(date: "TIMESTAMPTZ")),
        Migration(
            version: 20, name: "channel quizzes",
            statements: channelQuizTables(date: "REAL", flag: "INTEGER"),
            postgres: channelQuizTables(date: "TIMESTAMPTZ", flag: "BOOLEAN")),
        Migration(
            version: 21, name: "channel visits",
            statements: [
                // When each person last looked at what is new (an account's id or a browser's).
                "CREATE TABLE channel_visits (viewer_key TEXT PRIMARY KEY, seen_at REAL NOT NULL)"
            ],
            postgres: ["CREATE TABLE channel_visits (viewer_key TEXT PRIMARY KEY, seen_at TIMESTAMPTZ NOT NULL)"]),
        Migration(
            version: 22, name: "slide titles and speaker notes",
            statements: [
                // From a PPTX or ODP: the slide's title (the deck's outline) and the speaker's notes,
                // which only the presenter's console shows.
                "ALTER TABLE pages ADD COLUMN title TEXT",
                "ALTER TABLE pages ADD COLUMN speaker_notes TEXT NOT NULL DEFAULT ''",
            ]),
        blobCollectionMigration,
        audienceLogMigration,
        captionsMigration,
        clipPresentationMigration,
        uploadsMigration,
        uploadLeaseMigration,
        accountsMigration,
        externalIdentityMigration,
        ltiMigration,
        replayMigration,
        recordingsMigration,
        replayExportsMigration,
        mailLanguageMigration,
        retiringRenditionsMigration,
        sessionHostsMigration,
    ]

    /// Migration 19's tables: the channel's places (points of interest) and their categories.
    /// Coordinates in degrees (WGS 84); the image is a blob name.
    static func channelPlaceTables(date: String) -> [String] {
        [
            """
            CREATE TABLE channel_place_categories (
              id TEXT PRIMARY KEY, name TEXT NOT NULL, position INTEGER NOT NULL, updated_at \(date) NOT NULL,
              archived_at \(date))
            """,
            """
            CREATE TABLE channel_places (
              id TEXT PRIMARY KEY,
              category_id TEXT REFERENCES channel_place_categories(id) ON DELETE SET NULL,
              name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', address TEXT NOT NULL DEFAULT '',
              phone TEXT NOT NULL DEFAULT '', website TEXT NOT NULL DEFAULT '', opening_hours TEXT NOT NULL DEFAULT '',
              latitude DOUBLE PRECISION NOT NULL, longitude DOUBLE PRECISION NOT NULL, image TEXT,
              position INTEGER NOT NULL, published_at \(date), updated_at \(date) NOT NULL, archived_at \(date))
            """,
            "CREATE INDEX channel_places_category ON channel_places(category_id, position)",
            // The venue's (or city's) picture above the places: one row at most.
            """
            CREATE TABLE channel_venue (
              id INTEGER PRIMARY KEY CHECK (id = 1), image TEXT, updated_at \(date) NOT NULL)
            """,
        ]
    }

    /// Migration 20's tables: quizzes, their questions and answers (which are right), and each
    /// person's (viewer key's) last and best score.
    static func channelQuizTables(date: String, flag: String) -> [String] {
        [
            """
            CREATE TABLE channel_quizzes (
              id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
              position INTEGER NOT NULL, published_at \(date), updated_at \(date) NOT NULL, archived_at \(date))
            """,
            """
            CREATE TABLE channel_quiz_questions (
              id TEXT PRIMARY KEY, quiz_id TEXT NOT NULL REFERENCES channel_quizzes(id) ON DELETE CASCADE,
              position INTEGER NOT NULL, text TEXT NOT NULL)
            """,
            "CREATE INDEX channel_quiz_questions_quiz ON channel_quiz_questions(quiz_id, position)",
            """
            CREATE TABLE channel_quiz_answers (
              id TEXT PRIMARY KEY, question_id TEXT NOT NULL REFERENCES channel_quiz_questions(id) ON DELETE CASCADE,
              position INTEGER NOT NULL, text TEXT NOT NULL, correct \(flag) NOT NULL)
            """,
            "CREATE INDEX channel_quiz_answers_question ON channel_quiz_answers(question_id, position)",
            """
            CREATE TABLE channel_quiz_results (
              quiz_id TEXT NOT NULL REFERENCES channel_quizzes(id) ON DELETE CASCADE, viewer_key TEXT NOT NULL,
              score INTEGER NOT NULL, total INTEGER NOT NULL, best_score INTEGER NOT NULL, taken_at \(date) NOT NULL,
              best_at \(date) NOT NULL, PRIMARY KEY (quiz_id, viewer_key))
            """,
            "CREATE INDEX channel_quiz_results_viewer ON channel_quiz_results(viewer_key)",
        ]
    }

    /// Migration 15's tables, the same on both databases but for the type of dates and of byte counts.
    static func storyboardTables(date: String, bytes: String) -> [String] {
        [
            """
            CREATE TABLE storyboards (
              id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
              folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL, title TEXT NOT NULL,
              description TEXT NOT NULL DEFAULT '', aspect_ratio TEXT NOT NULL, scene_count INTEGER NOT NULL DEFAULT 0,
              shot_count INTEGER NOT NULL DEFAULT 0, seq INTEGER NOT NULL DEFAULT 0, created_at \(date) NOT NULL,
              updated_at \(date) NOT NULL)
            """,
            "CREATE INDEX storyboards_owner ON storyboards(owner_id, updated_at)",
            """
            CREATE TABLE storyboard_editors (
              storyboard_id TEXT NOT NULL REFERENCES storyboards(id) ON DELETE CASCADE,
              user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, PRIMARY KEY (storyboard_id, user_id))
            """,
            "CREATE INDEX storyboard_editors_user ON storyboard_editors(user_id)",
            """
            CREATE TABLE storyboard_edits (
              storyboard_id TEXT NOT NULL REFERENCES storyboards(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
              author_id TEXT NOT NULL, command_key TEXT, shot_id TEXT, edit TEXT NOT NULL, created_at \(date) NOT NULL,
              PRIMARY KEY (storyboard_id, seq))
            """,
            "CREATE UNIQUE INDEX storyboard_edits_command ON storyboard_edits(storyboard_id, command_key)",
            "CREATE INDEX storyboard_edits_shot ON storyboard_edits(storyboard_id, shot_id, seq)",
            """
            CREATE TABLE storyboard_snapshots (
              storyboard_id TEXT NOT NULL REFERENCES storyboards(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
              content TEXT NOT NULL, created_at \(date) NOT NULL, PRIMARY KEY (storyboard_id, seq))
            """,
            """
            CREATE TABLE storyboard_exports (
              id TEXT PRIMARY KEY, storyboard_id TEXT NOT NULL REFERENCES storyboards(id) ON DELETE CASCADE,
              owner_id TEXT NOT NULL, format TEXT NOT NULL, layout INTEGER NOT NULL, seq INTEGER NOT NULL,
              status TEXT NOT NULL, blob TEXT, bytes \(bytes) NOT NULL DEFAULT 0, error_code TEXT, error_message TEXT,
              created_at \(date) NOT NULL)
            """,
            "CREATE INDEX storyboard_exports_storyboard ON storyboard_exports(storyboard_id, created_at)",
        ]
    }

    /// The key of the advisory lock that makes PostgreSQL nodes starting together migrate one
    /// at a time (any constant of our own; "podium" in ASCII).
    static let advisoryLockKey: Int64 = 0x706F_6469_756D

    /// Runs pending migrations on PostgreSQL, holding a session-level advisory lock for the
    /// whole run on this connection: a second node waits, then finds them applied.
    static func runLocked(on db: any SQLDatabase, logger: Logger) async throws {
        try await db.raw("SELECT pg_advisory_lock(\(bind: advisoryLockKey))").run()
        do {
            try await run(on: db, dialect: .postgres, logger: logger)
        } catch {
            try? await db.raw("SELECT pg_advisory_unlock(\(bind: advisoryLockKey))").run()
            throw error
        }
        try await db.raw("SELECT pg_advisory_unlock(\(bind: advisoryLockKey))").run()
    }

    static func run(on db: any SQLDatabase, dialect: SQLStore.Dialect, logger: Logger) async throws {
        let dateType = dialect == .sqlite ? "REAL" : "TIMESTAMPTZ"
        try await db.raw(
            """
            CREATE TABLE IF NOT EXISTS podium_migrations (
              version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at \(unsafeRaw: dateType) NOT NULL)
            """
        ).run()
        struct Row: Decodable { let version: Int }
        let applied = Set(
            try await db.select().column("version").from("podium_migrations").all(decoding: Row.self).map(\.version))
        for migration in all where !applied.contains(migration.version) {
            logger.info("applying migration \(migration.version): \(migration.name)")
            let sqliteRebuild = dialect == .sqlite && migration.rebuildsTables
            // Outside the transaction: SQLite ignores this pragma inside one.
            if sqliteRebuild { try await db.raw("PRAGMA foreign_keys=OFF").run() }
            try await db.raw("BEGIN").run()
            do {
                let statements = dialect == .postgres ? migration.postgres ?? migration.statements : migration.statements
                for statement in statements { try await db.raw(SQLQueryString(statement)).run() }
                if sqliteRebuild {
                    struct Violation: Decodable { let table: String }
                    let violations = try await db.raw("PRAGMA foreign_key_check").all(decoding: Violation.self)
                    guard violations.isEmpty else {
                        throw MigrationError(
                            message: "migration \(migration.version) breaks references in \(violations[0].table)")
                    }
                }
                try await db.insert(into: "podium_migrations")
                    .columns("version", "name", "applied_at")
                    .values(SQLBind(migration.version), SQLBind(migration.name), SQLBind(Date()))
                    .run()
                try await db.raw("COMMIT").run()
            } catch {
                try? await db.raw("ROLLBACK").run()
                if sqliteRebuild { try? await db.raw("PRAGMA foreign_keys=ON").run() }
                throw error
            }
            if sqliteRebuild { try await db.raw("PRAGMA foreign_keys=ON").run() }
        }
    }
}

struct MigrationError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
