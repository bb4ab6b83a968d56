"""Accounts of the multi-user server: users, argon2 password hashes, API tokens (SQLite).

One SQLite file (``<data_dir>/server/accounts.sqlite3``); every change is one transaction, so a
crash never leaves half a user. Passwords are argon2id hashes (``argon2-cffi``); API tokens are
random 256-bit secrets shown once and stored as their SHA-256 (a token is high-entropy, so a
fast hash is enough and lets a request find its token by hash).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from aizac.errors import ConflictError, InvalidInputError, NotFoundError, StorageError

TOKEN_PREFIX = "aizac_"
MIN_PASSWORD = 8
MAX_PASSWORD = 256
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


@dataclass(frozen=True)
class User:
    """An account: ``id`` names its sandbox folder; ``name`` is what the person logs in with."""

    id: str
    name: str


@dataclass(frozen=True)
class TokenInfo:
    id: str
    label: str
    created_at: float


def name_key(name: str) -> str:
    """The identity of a user name: NFC, case-folded ("Mina" and "mina" are one account)."""
    return unicodedata.normalize("NFC", name).strip().casefold()


def check_user_name(name: str) -> str:
    """A user name, NFC-normalised: 2-40 letters, digits, '.', '-' or '_' (pure)."""
    clean = unicodedata.normalize("NFC", name).strip()
    ok = 2 <= len(clean) <= 40 and all(c.isalnum() or c in "._-" for c in clean)
    if not ok or clean[0] in "._-":
        raise InvalidInputError(
            f"{name!r} is not a valid user name.",
            hint="Use 2-40 letters, digits, '.', '-' or '_', starting with a letter or digit.",
        )
    return clean


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidInputError(
            f"A password needs {MIN_PASSWORD} to {MAX_PASSWORD} characters.",
            hint="Choose a longer passphrase.",
        )
    return password


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class AccountStore:
    """Users and their API tokens in one SQLite file (thread-safe; one connection per call)."""

    def __init__(self, path: Path, *, hasher: PasswordHasher | None = None) -> None:
        self.path = Path(path)
        self.hasher = hasher or PasswordHasher()
        self._write = threading.Lock()
        # A hash to verify against when the name is unknown: the same work either way, so
        # response times do not tell which names exist.
        self._dummy = self.hasher.hash(secrets.token_hex(8))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._db() as db:
                db.executescript(_SCHEMA)
            os.chmod(self.path, 0o600)  # password hashes and token digests: the server's only
        except (OSError, sqlite3.Error) as e:
            raise StorageError(f"Cannot open the accounts database {self.path}: {e}.") from e

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:  # one transaction: committed whole or rolled back
                yield db
        finally:
            db.close()

    # ----------------------------------------------------------------------------- users
    def add_user(self, name: str, password: str) -> User:
        """A new account; :class:`ConflictError` if the name (case-folded) is taken."""
        clean = check_user_name(name)
        digest = self.hasher.hash(check_password(password))
        user = User(id=uuid.uuid4().hex, name=clean)
        try:
            with self._write, self._db() as db:
                db.execute(
                    "INSERT INTO users (id, name, name_key, password_hash, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (user.id, clean, name_key(clean), digest, time.time()),
                )
        except sqlite3.IntegrityError as e:
            raise ConflictError(
                f"The user name {clean!r} is taken.", hint="Choose another name."
            ) from e
        except sqlite3.Error as e:
            raise StorageError(f"Cannot store the account: {e}.") from e
        return user

    def user(self, user_id: str) -> User:
        with self._db() as db:
            row = db.execute("SELECT id, name FROM users WHERE id = ?", (user_id,)).fetchone()
        if row is None:
            raise NotFoundError("No such user.", hint="Log in again.")
        return User(*row)

    def users(self) -> list[User]:
        with self._db() as db:
            rows = db.execute("SELECT id, name FROM users ORDER BY created_at").fetchall()
        return [User(*r) for r in rows]

    def verify(self, name: str, password: str) -> User | None:
        """The user whose name and password these are, else ``None`` (same cost either way)."""
        with self._db() as db:
            row = db.execute(
                "SELECT id, name, password_hash FROM users WHERE name_key = ?",
                (name_key(name),),
            ).fetchone()
        stored = row[2] if row else self._dummy
        try:
            self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        if row is None:
            return None
        if self.hasher.check_needs_rehash(stored):
            with self._write, self._db() as db:
                db.execute("UPDATE users SET password_hash = ? WHERE id = ?",
                           (self.hasher.hash(password), row[0]))
        return User(row[0], row[1])

    # ---------------------------------------------------------------------------- tokens
    def new_token(self, user_id: str, label: str = "") -> tuple[str, TokenInfo]:
        """A new API token for ``user_id``: (the secret, shown once; its stored record)."""
        if len(label) > 80:
            raise InvalidInputError("The token label is too long (at most 80 characters).")
        self.user(user_id)
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = TokenInfo(id=uuid.uuid4().hex[:16], label=label.strip(), created_at=time.time())
        with self._write, self._db() as db:
            db.execute(
                "INSERT INTO tokens (id, user_id, token_hash, label, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (info.id, user_id, token_hash(secret), info.label, info.created_at),
            )
        return secret, info

    def tokens(self, user_id: str) -> list[TokenInfo]:
        with self._db() as db:
            rows = db.execute(
                "SELECT id, label, created_at FROM tokens WHERE user_id = ? ORDER BY created_at",
                (user_id,),
            ).fetchall()
        return [TokenInfo(*r) for r in rows]

    def revoke_token(self, user_id: str, token_id: str) -> None:
        """Delete one of ``user_id``'s tokens (another user's token id is not found)."""
        with self._write, self._db() as db:
            gone = db.execute(
                "DELETE FROM tokens WHERE id = ? AND user_id = ?", (token_id, user_id)
            ).rowcount
        if not gone:
            raise NotFoundError("No such token.", hint="List your tokens first.")

    def user_of_token(self, token: str) -> User | None:
        if not token.startswith(TOKEN_PREFIX):
            return None
        with self._db() as db:
            row = db.execute(
                "SELECT u.id, u.name FROM tokens t JOIN users u ON u.id = t.user_id "
                "WHERE t.token_hash = ?",
                (token_hash(token),),
            ).fetchone()
        return User(*row) if row else None


class SessionStore:
    """Server-side sessions (in the accounts database): the signed cookie carries a random
    session id, so logging out ends that session even if the cookie was copied."""

    def __init__(self, accounts: AccountStore, max_age_s: float) -> None:
        self.accounts = accounts
        self.max_age_s = max_age_s

    def start(self, user_id: str) -> str:
        sid = secrets.token_urlsafe(32)
        now = time.time()
        with self.accounts._write, self.accounts._db() as db:
            db.execute("DELETE FROM sessions WHERE created_at < ?", (now - self.max_age_s,))
            db.execute("INSERT INTO sessions (id_hash, user_id, created_at) VALUES (?, ?, ?)",
                       (token_hash(sid), user_id, now))
        return sid

    def user(self, sid: str) -> User | None:
        with self.accounts._db() as db:
            row = db.execute(
                "SELECT u.id, u.name FROM sessions s JOIN users u ON u.id = s.user_id "
                "WHERE s.id_hash = ? AND s.created_at >= ?",
                (token_hash(sid), time.time() - self.max_age_s),
            ).fetchone()
        return User(*row) if row else None

    def end(self, sid: str) -> None:
        with self.accounts._write, self.accounts._db() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (token_hash(sid),))


class LoginLimiter:
    """Failed logins per key (name, address) in a sliding window; thread-safe, in memory.

    A node forgets on restart; several nodes each count their own (the proxy's user affinity
    keeps one person on one node)."""

    def __init__(
        self, attempts: int, window_s: float, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.attempts = attempts
        self.window_s = window_s
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
            return max(0.0, self.window_s - (now - recent[0]))

    def failed(self, key: str) -> None:
        now = self._now()
        with self._lock:
            self._failures[key] = [*self._recent(key, now), now]

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)
