"""The SQLite layouts aizac wrote before schema versions (as of 9c4639f), to adopt in tests."""

PROJECT = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plot (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    json TEXT NOT NULL,
    tropes TEXT NOT NULL DEFAULT '',
    memory_ids TEXT NOT NULL DEFAULT '[]',
    version INTEGER NOT NULL DEFAULT 1,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    number INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS beats (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    episode INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'accepted', 'rejected')),
    json TEXT NOT NULL,
    new_characters TEXT NOT NULL DEFAULT '[]',
    instruction TEXT NOT NULL DEFAULT '',
    memory_ids TEXT NOT NULL DEFAULT '[]',
    summary TEXT NOT NULL DEFAULT '',
    prose TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS beats_slot ON beats(episode, idx) WHERE status != 'rejected';
CREATE TABLE IF NOT EXISTS kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS steps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}'
);
"""

IMAGES = """
CREATE TABLE IF NOT EXISTS images (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('cover', 'scene')),
    episode INTEGER NOT NULL DEFAULT 0,
    beat INTEGER NOT NULL DEFAULT 0,
    beat_id INTEGER NOT NULL DEFAULT 0,
    prompt TEXT NOT NULL,
    negative TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL,
    billable INTEGER NOT NULL,
    file TEXT NOT NULL,
    media_type TEXT NOT NULL,
    width INTEGER NOT NULL DEFAULT 0,
    height INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    sources TEXT NOT NULL DEFAULT '[]',
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS image_places (
    slot TEXT PRIMARY KEY,
    image_id TEXT NOT NULL REFERENCES images(id),
    placed_at REAL NOT NULL
);
"""

CONTINUITY = """
CREATE TABLE IF NOT EXISTS threads (
    memory_id TEXT PRIMARY KEY, keyword TEXT NOT NULL, text TEXT NOT NULL,
    planted INTEGER NOT NULL, last_advanced INTEGER NOT NULL, due INTEGER NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS secrets (
    memory_id TEXT PRIMARY KEY, keyword TEXT NOT NULL, text TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS knowers (
    memory_id TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL, since INTEGER NOT NULL,
    PRIMARY KEY (memory_id, key)
);
"""

KEYS = """
CREATE TABLE IF NOT EXISTS keys (
    coll TEXT NOT NULL, id TEXT NOT NULL, tag TEXT NOT NULL, name TEXT NOT NULL,
    c1 TEXT NOT NULL, c2 TEXT NOT NULL, foreshadow INTEGER NOT NULL, live REAL NOT NULL,
    slot TEXT NOT NULL, subject TEXT NOT NULL, fp TEXT NOT NULL,
    aliases TEXT NOT NULL, chapter INTEGER NOT NULL, beat INTEGER NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (coll, id)
);
CREATE INDEX IF NOT EXISTS keys_slot ON keys (coll, slot, live);
CREATE INDEX IF NOT EXISTS keys_subject ON keys (coll, subject, tag, live);
CREATE INDEX IF NOT EXISTS keys_fp ON keys (coll, fp, live);
CREATE INDEX IF NOT EXISTS keys_name ON keys (coll, name, tag, live);
CREATE INDEX IF NOT EXISTS keys_pair ON keys (coll, c1, c2, live);
CREATE INDEX IF NOT EXISTS keys_tag ON keys (coll, tag, live);
CREATE INDEX IF NOT EXISTS keys_foreshadow ON keys (coll, foreshadow, live);
CREATE INDEX IF NOT EXISTS keys_live ON keys (coll, live);
"""

JOURNAL = """
CREATE TABLE IF NOT EXISTS commits (
    coll TEXT NOT NULL, batch TEXT NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL,
    record TEXT NOT NULL, PRIMARY KEY (coll, batch)
);
CREATE INDEX IF NOT EXISTS commits_status ON commits (coll, status);
"""

ACCOUNTS = """
CREATE TABLE IF NOT EXISTS users (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
    token_hash TEXT NOT NULL UNIQUE, label TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
    created_at REAL NOT NULL);
"""
