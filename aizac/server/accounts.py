"""Accounts of the multi-user server: users, sessions, API tokens (one SQLite file).

:class:`AccountStore` is the server's only account storage interface (its public methods);
:class:`SessionStore` and the routes never touch SQL. Everything lives in
``<data_dir>/server/accounts.sqlite3`` (mode 0600); every change is one transaction, so a crash
never leaves half a user. Passwords are argon2id hashes (``argon2-cffi``); a password check
runs in one of a few *hash slots* (argon2 is made to be costly: a flood of logins must not
pile up work and memory), and a login for an unknown name verifies a dummy hash, so failing
costs the same either way. API tokens are random 256-bit secrets shown once and stored as their
SHA-256 (high-entropy, so a fast hash is enough and lets a request find its token); each has a
scope (``write`` or ``read``), an optional expiry, and the token it was minted from, if any:
revoking a token revokes the ones minted from it.

Users have a role (``user`` or ``admin``), may be disabled (no login; their sessions and tokens
stop working at once), and may choose the language of the server's messages.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from aizac.errors import ConflictError, InvalidInputError, NotFoundError, StorageError
from aizac.server.errors import UnavailableError, clip
from aizac.server.policy import check_password, check_user_name, name_key, skeleton

TOKEN_PREFIX = "aizac_"
ROLES = ("user", "admin")
SCOPES = ("write", "read")
_SCHEMA = """
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
_COLUMNS = {  # added to databases made before them (ALTER TABLE ... ADD COLUMN)
    "users": [("role", "TEXT NOT NULL DEFAULT 'user'"), ("disabled", "INTEGER NOT NULL DEFAULT 0"),
              ("language", "TEXT"), ("skeleton", "TEXT")],
    "tokens": [("scope", "TEXT NOT NULL DEFAULT 'write'"), ("expires_at", "REAL"),
               ("parent_id", "TEXT")],
}
_INDEXES = """
CREATE INDEX IF NOT EXISTS users_skeleton ON users (skeleton);
CREATE INDEX IF NOT EXISTS tokens_user ON tokens (user_id);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);
"""
_USER_COLUMNS = "u.id, u.name, u.role, u.disabled, u.language, u.created_at"


@dataclass(frozen=True)
class User:
    """An account: ``id`` names its sandbox folder; ``name`` is what the person logs in with.

    Attributes:
        role: ``user`` or ``admin``.
        disabled: may not log in; no session or token works.
        language: the language of the server's messages to this user (``None``: the
            browser's ``Accept-Language``).
    """

    id: str
    name: str
    role: str = "user"
    disabled: bool = False
    language: str | None = None
    created_at: float = 0.0

    @property
    def admin(self) -> bool:
        return self.role == "admin"


def _user(row: tuple[object, ...]) -> User:
    return User(str(row[0]), str(row[1]), str(row[2]), bool(row[3]),
                str(row[4]) if row[4] else None, float(row[5]))  # type: ignore[arg-type]


@dataclass(frozen=True)
class TokenInfo:
    """An API token's record (never its secret)."""

    id: str
    label: str
    created_at: float
    scope: str = "write"
    expires_at: float | None = None
    parent_id: str | None = None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class AccountStore:
    """Users, sessions and API tokens in one SQLite file (thread-safe; one connection per
    call; several processes on one host share it through SQLite's locking).

    Args:
        path: the database file.
        hasher: the argon2 parameters (tests pass a cheap profile).
        hash_slots: password hashes computed at once at most; more wait for a slot.
        hash_wait_s: how long a password check waits for a slot before the server says it is
            busy (503) instead of queueing without end.
        min_password_score: the zxcvbn score (0-4) a new password needs.
        clock: the wall clock (expiry of tokens and sessions).
    """

    def __init__(self, path: Path, *, hasher: PasswordHasher | None = None,
                 hash_slots: int = 2, hash_wait_s: float = 10.0, min_password_score: int = 3,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.hasher = hasher or PasswordHasher()
        self.hash_wait_s = hash_wait_s
        self.min_password_score = min_password_score
        self.clock = clock
        self._slots = threading.BoundedSemaphore(max(1, hash_slots))
        self._write = threading.Lock()
        # A hash to verify against when the name is unknown: the same work either way, so
        # response times do not tell which names exist.
        self._dummy = self.hasher.hash(secrets.token_hex(8))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._db() as db:
                db.executescript(_SCHEMA)
                self._migrate(db)
                db.executescript(_INDEXES)
            os.chmod(self.path, 0o600)  # password hashes and token digests: the server's only
        except (OSError, sqlite3.Error) as e:
            raise StorageError("error.server.accounts_unreadable", detail=clip(e)) from e

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        for table, columns in _COLUMNS.items():
            have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
            for name, kind in columns:
                if name not in have:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        for user_id, name in db.execute(
                "SELECT id, name FROM users WHERE skeleton IS NULL").fetchall():
            db.execute("UPDATE users SET skeleton = ? WHERE id = ?", (skeleton(name), user_id))

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:  # one transaction: committed whole or rolled back
                yield db
        finally:
            db.close()

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that holds the database from its first statement (a check and
        the write that follows it are one, across processes too)."""
        with self._write:
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            except sqlite3.Error as e:
                raise StorageError("error.server.accounts_unwritable", detail=clip(e)) from e
            finally:
                db.close()

    @contextlib.contextmanager
    def hashing(self) -> Iterator[None]:
        """One of the few password-hash slots (503 when none frees up in time)."""
        if not self._slots.acquire(timeout=self.hash_wait_s):
            raise UnavailableError("error.server.busy_hashing", retry_after=5.0)
        try:
            yield
        finally:
            self._slots.release()

    # ----------------------------------------------------------------------------- users
    def check_new_password(self, password: str, name: str = "") -> str:
        return check_password(password, name=name, min_score=self.min_password_score)

    def add_user(self, name: str, password: str, *, role: str = "user") -> User:
        """A new account; :class:`ConflictError` if the name, or a look-alike, is taken."""
        clean = check_user_name(name)
        if role not in ROLES:
            raise InvalidInputError("error.server.role_invalid", role=clip(role, 20))
        self.check_new_password(password, clean)
        with self.hashing():
            digest = self.hasher.hash(password)
        user = User(id=uuid.uuid4().hex, name=clean, role=role, created_at=self.clock())
        with self._writing() as db:
            look = skeleton(clean)
            if db.execute("SELECT 1 FROM users WHERE name_key = ?",
                          (name_key(clean),)).fetchone():
                raise ConflictError("error.server.name_taken", name=clean)
            if db.execute("SELECT 1 FROM users WHERE skeleton = ?", (look,)).fetchone():
                raise ConflictError("error.server.name_confusable", name=clean)
            db.execute(
                "INSERT INTO users (id, name, name_key, password_hash, created_at, role, "
                "skeleton) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (user.id, clean, name_key(clean), digest, user.created_at, role, look),
            )
        return user

    def user(self, user_id: str) -> User:
        with self._db() as db:
            row = db.execute(f"SELECT {_USER_COLUMNS} FROM users u WHERE u.id = ?",
                             (user_id,)).fetchone()
        if row is None:
            raise NotFoundError("error.server.user_not_found")
        return _user(row)

    def by_name(self, name: str) -> User:
        with self._db() as db:
            row = db.execute(f"SELECT {_USER_COLUMNS} FROM users u WHERE u.name_key = ?",
                             (name_key(name),)).fetchone()
        if row is None:
            raise NotFoundError("error.server.user_not_found")
        return _user(row)

    def users(self) -> list[User]:
        with self._db() as db:
            rows = db.execute(f"SELECT {_USER_COLUMNS} FROM users u ORDER BY u.created_at"
                              ).fetchall()
        return [_user(r) for r in rows]

    def count_admins(self) -> int:
        with self._db() as db:
            row = db.execute("SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = 0"
                             ).fetchone()
        return int(row[0])

    def verify(self, name: str, password: str) -> User | None:
        """The user whose name and password these are (disabled or not), else ``None``; the
        same cost either way, in a hash slot."""
        with self._db() as db:
            row = db.execute(
                f"SELECT {_USER_COLUMNS}, u.password_hash FROM users u WHERE u.name_key = ?",
                (name_key(name),),
            ).fetchone()
        stored = str(row[6]) if row else self._dummy
        with self.hashing():
            try:
                self.hasher.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return None
            if row is None:
                return None
            fresh = self.hasher.hash(password) if self.hasher.check_needs_rehash(stored) else ""
        if fresh:
            with self._writing() as db:
                db.execute("UPDATE users SET password_hash = ? WHERE id = ?", (fresh, row[0]))
        return _user(row)

    def set_password(self, user_id: str, password: str) -> None:
        """A new password for ``user_id`` (checked like a new account's)."""
        user = self.user(user_id)
        self.check_new_password(password, user.name)
        with self.hashing():
            digest = self.hasher.hash(password)
        with self._writing() as db:
            db.execute("UPDATE users SET password_hash = ? WHERE id = ?", (digest, user_id))

    def _update_user(self, user_id: str, sql: str, args: tuple[object, ...],
                     keep_an_admin: bool = False) -> None:
        with self._writing() as db:
            if db.execute("SELECT 1 FROM users WHERE id = ?", (user_id,)).fetchone() is None:
                raise NotFoundError("error.server.user_not_found")
            db.execute(sql, (*args, user_id))
            if keep_an_admin and not db.execute(
                    "SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = 0"
            ).fetchone()[0]:
                raise ConflictError("error.server.last_admin")  # rolled back

    def set_disabled(self, user_id: str, disabled: bool) -> None:
        """Disable (or enable) an account; a disabled one's sessions end."""
        self._update_user(user_id, "UPDATE users SET disabled = ? WHERE id = ?",
                          (int(disabled),), keep_an_admin=disabled)
        if disabled:
            self.end_sessions(user_id)

    def set_role(self, user_id: str, role: str) -> None:
        if role not in ROLES:
            raise InvalidInputError("error.server.role_invalid", role=clip(role, 20))
        self._update_user(user_id, "UPDATE users SET role = ? WHERE id = ?", (role,),
                          keep_an_admin=role != "admin")

    def set_language(self, user_id: str, language: str | None) -> None:
        self._update_user(user_id, "UPDATE users SET language = ? WHERE id = ?", (language,))

    def delete_user(self, user_id: str) -> None:
        """Delete the account's rows (its tokens and sessions too); the sandbox is the
        caller's (see :mod:`aizac.server.lifecycle`)."""
        with self._writing() as db:
            row = db.execute("SELECT role, disabled FROM users WHERE id = ?",
                             (user_id,)).fetchone()
            if row is None:
                raise NotFoundError("error.server.user_not_found")
            db.execute("DELETE FROM tokens WHERE user_id = ?", (user_id,))
            db.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
            db.execute("DELETE FROM users WHERE id = ?", (user_id,))
            if row[0] == "admin" and not db.execute(
                    "SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = 0"
            ).fetchone()[0]:
                raise ConflictError("error.server.last_admin")  # rolled back

    # -------------------------------------------------------------------------- sessions
    def start_session(self, user_id: str, max_age_s: float) -> str:
        sid = secrets.token_urlsafe(32)
        now = self.clock()
        with self._writing() as db:
            db.execute("DELETE FROM sessions WHERE created_at < ?", (now - max_age_s,))
            db.execute("INSERT INTO sessions (id_hash, user_id, created_at) VALUES (?, ?, ?)",
                       (token_hash(sid), user_id, now))
        return sid

    def session_user(self, sid: str, max_age_s: float) -> User | None:
        with self._db() as db:
            row = db.execute(
                f"SELECT {_USER_COLUMNS} FROM sessions s JOIN users u ON u.id = s.user_id "
                "WHERE s.id_hash = ? AND s.created_at >= ? AND u.disabled = 0",
                (token_hash(sid), self.clock() - max_age_s),
            ).fetchone()
        return _user(row) if row else None

    def end_session(self, sid: str) -> None:
        with self._writing() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (token_hash(sid),))

    def end_sessions(self, user_id: str, *, keep: str | None = None) -> int:
        """End every session of ``user_id`` (but ``keep``'s); how many ended."""
        with self._writing() as db:
            return int(db.execute(
                "DELETE FROM sessions WHERE user_id = ? AND id_hash != ?",
                (user_id, token_hash(keep) if keep else ""),
            ).rowcount)

    # ---------------------------------------------------------------------------- tokens
    def new_token(self, user_id: str, label: str = "", *, scope: str = "write",
                  expires_in_s: float | None = None, parent_id: str | None = None,
                  cap: int = 20) -> tuple[str, TokenInfo]:
        """A new API token for ``user_id``: (the secret, shown once; its stored record).

        Raises:
            LimitError: the user has ``cap`` live tokens already.
        """
        from aizac.errors import LimitError

        if scope not in SCOPES:
            raise InvalidInputError("error.server.scope_invalid", scope=clip(scope, 20))
        self.user(user_id)
        now = self.clock()
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = TokenInfo(id=uuid.uuid4().hex[:16], label=label.strip(), created_at=now,
                         scope=scope, expires_at=now + expires_in_s if expires_in_s else None,
                         parent_id=parent_id)
        with self._writing() as db:
            db.execute("DELETE FROM tokens WHERE user_id = ? AND expires_at IS NOT NULL "
                       "AND expires_at <= ?", (user_id, now))
            have = int(db.execute("SELECT COUNT(*) FROM tokens WHERE user_id = ?",
                                  (user_id,)).fetchone()[0])
            if have >= cap:
                raise LimitError("error.server.token_cap", count=have, limit=cap)
            db.execute(
                "INSERT INTO tokens (id, user_id, token_hash, label, created_at, scope, "
                "expires_at, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (info.id, user_id, token_hash(secret), info.label, info.created_at, scope,
                 info.expires_at, parent_id),
            )
        return secret, info

    def tokens(self, user_id: str) -> list[TokenInfo]:
        with self._db() as db:
            rows = db.execute(
                "SELECT id, label, created_at, scope, expires_at, parent_id FROM tokens "
                "WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?) "
                "ORDER BY created_at", (user_id, self.clock()),
            ).fetchall()
        return [TokenInfo(*r) for r in rows]

    def revoke_token(self, user_id: str, token_id: str) -> int:
        """Delete one of ``user_id``'s tokens and every token minted from it (another
        user's token id is not found); how many went."""
        with self._writing() as db:
            found = db.execute("SELECT 1 FROM tokens WHERE id = ? AND user_id = ?",
                               (token_id, user_id)).fetchone()
            if found is None:
                raise NotFoundError("error.server.token_not_found")
            tree = [r[0] for r in db.execute(
                "WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT t.id FROM tokens t "
                "JOIN tree ON t.parent_id = tree.id) SELECT id FROM tree", (token_id,))]
            db.executemany("DELETE FROM tokens WHERE user_id = ? AND id = ?",
                           [(user_id, i) for i in tree])
        return len(tree)

    def revoke_tokens(self, user_id: str) -> int:
        """Delete every token of ``user_id``; how many went."""
        with self._writing() as db:
            db.execute("DELETE FROM tokens WHERE user_id = ? AND expires_at IS NOT NULL "
                       "AND expires_at <= ?", (user_id, self.clock()))
            return int(db.execute("DELETE FROM tokens WHERE user_id = ?", (user_id,)).rowcount)

    def token_user(self, token: str) -> tuple[User, TokenInfo] | None:
        """The (enabled) user of a live token and the token's record, else ``None``."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        with self._db() as db:
            row = db.execute(
                f"SELECT {_USER_COLUMNS}, t.id, t.label, t.created_at, t.scope, t.expires_at, "
                "t.parent_id FROM tokens t JOIN users u ON u.id = t.user_id "
                "WHERE t.token_hash = ? AND u.disabled = 0 "
                "AND (t.expires_at IS NULL OR t.expires_at > ?)",
                (token_hash(token), self.clock()),
            ).fetchone()
        return (_user(row[:6]), TokenInfo(*row[6:])) if row else None

    def user_of_token(self, token: str) -> User | None:
        found = self.token_user(token)
        return found[0] if found else None


class SessionStore:
    """Server-side sessions: the signed cookie carries a random session id, so logging out
    ends that session even if the cookie was copied."""

    def __init__(self, accounts: AccountStore, max_age_s: float) -> None:
        self.accounts = accounts
        self.max_age_s = max_age_s

    def start(self, user_id: str) -> str:
        return self.accounts.start_session(user_id, self.max_age_s)

    def user(self, sid: str) -> User | None:
        return self.accounts.session_user(sid, self.max_age_s)

    def end(self, sid: str) -> None:
        self.accounts.end_session(sid)


class LoginLimiter:
    """Failures per key in a sliding window; thread-safe, in memory, bounded.

    A node forgets on restart; several nodes each count their own (the proxy's affinity keeps
    one person on one node). At most ``max_keys`` keys are remembered: past that, the ones
    whose last failure is oldest are forgotten first (a flood of random names costs bounded
    memory).
    """

    def __init__(
        self, attempts: int, window_s: float, now: Callable[[], float] = time.monotonic,
        max_keys: int = 50_000,
    ) -> None:
        self.attempts = attempts
        self.window_s = window_s
        self.max_keys = max_keys
        self._now = now
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> list[float]:
        kept = [t for t in self._failures.get(key, []) if now - t < self.window_s]
        if kept:
            self._failures[key] = kept
        else:
            self._failures.pop(key, None)
        return kept

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        now = self._now()
        with self._lock:
            recent = self._recent(key, now)
            if len(recent) < self.attempts:
                return 0.0
            return max(0.0, self.window_s - (now - recent[-self.attempts]))

    def take(self, key: str) -> float:
        """Count an attempt now, before its outcome is known (so attempts made at once cannot
        all slip under the limit); returns the seconds to wait instead when over it (nothing
        counted then). :meth:`forgive` takes it back when the attempt succeeds."""
        now = self._now()
        with self._lock:
            recent = self._recent(key, now)
            if len(recent) >= self.attempts:
                return max(0.0, self.window_s - (now - recent[-self.attempts]))
            self._failures[key] = [*recent, now]
            self._failures[key] = self._failures.pop(key)
            while len(self._failures) > self.max_keys:
                self._failures.pop(next(iter(self._failures)))
            return 0.0

    def forgive(self, key: str) -> None:
        """Take back the newest attempt of ``key`` (it succeeded)."""
        with self._lock:
            kept = self._failures.get(key, [])
            if kept:
                kept.pop()
            if not kept:
                self._failures.pop(key, None)

    def failed(self, key: str) -> None:
        now = self._now()
        with self._lock:
            self._failures[key] = [*self._recent(key, now), now][-self.attempts:]
            # dicts keep insertion order: re-inserted keys move to the end
            self._failures[key] = self._failures.pop(key)
            while len(self._failures) > self.max_keys:
                self._failures.pop(next(iter(self._failures)))

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def __len__(self) -> int:
        return len(self._failures)


__all__ = ["ROLES", "SCOPES", "AccountStore", "LoginLimiter", "SessionStore", "TokenInfo",
           "User", "name_key"]
