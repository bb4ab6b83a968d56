"""Accounts of the multi-user server: users, argon2 password hashes, API tokens, sessions.

Embedded, one SQLite file (``<data_dir>/server/accounts.sqlite3``); with
``AIZAC_DATABASE_URL``, the tables of :data:`aizac.storage.tables.users` and its neighbours in
the PostgreSQL database, so every replica of ``aizac serve`` knows every account, token and
session (:meth:`AccountStore.open` picks). Every change is one transaction, so a crash never
leaves half a user. Passwords are argon2id hashes (``argon2-cffi``); API tokens are random
256-bit secrets shown once and stored as their SHA-256 (a token is high-entropy, so a fast hash
is enough and lets a request find its token by hash).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from aizac.errors import ConflictError, InvalidInputError, NotFoundError, StorageError
from aizac.settings import Settings
from aizac.storage.database import Database, server_database, sqlite_file
from aizac.storage.tables import sessions, tokens, users

TOKEN_PREFIX = "aizac_"
MIN_PASSWORD = 8
MAX_PASSWORD = 256
MAX_LABEL = 80  # characters of an API token's label
ACCOUNTS_FILE = Path("server") / "accounts.sqlite3"
"""The embedded accounts file, relative to the data directory."""


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
        raise InvalidInputError("error.account.name", name=name)
    return clean


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidInputError("error.account.password", least=MIN_PASSWORD,
                                most=MAX_PASSWORD)
    return password


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _user(row: Sequence[Any]) -> User:
    return User(str(row[0]), str(row[1]))


class AccountStore:
    """Users, their API tokens and sessions in one database (thread-safe).

    Args:
        where: the embedded SQLite file (made private to the server's user), or a
            :class:`Database` (the PostgreSQL one of :meth:`open`).
        hasher: the argon2 profile (tests pass a cheap one).
    """

    def __init__(self, where: Path | Database, *, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher or PasswordHasher()
        self._write = threading.Lock()  # embedded: one writer of this process at a time
        # A hash to verify against when the name is unknown: the same work either way, so
        # response times do not tell which names exist.
        self._dummy = self.hasher.hash(secrets.token_hex(8))
        if isinstance(where, Database):
            self.path: Path | None = None
            self.db = where
            self.db.ensure("accounts")
            return
        self.path = Path(where)
        try:  # password hashes and token digests: the server's only. Made private before
            # SQLite opens it, since its WAL and shared-memory files take the file's mode.
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch(mode=0o600, exist_ok=True)
            for private in (self.path, *(self.path.with_name(self.path.name + end)
                                         for end in ("-wal", "-shm"))):
                if private.exists():
                    os.chmod(private, 0o600)
        except OSError as e:
            raise StorageError("error.account.open", path=str(self.path), cause=str(e)) from e
        self.db = sqlite_file(self.path, "accounts")

    @classmethod
    def open(cls, settings: Settings, *, hasher: PasswordHasher | None = None) -> AccountStore:
        """The installation's accounts: on the PostgreSQL database when ``settings`` name one
        (``AIZAC_DATABASE_URL``), else in ``<data_dir>/server/accounts.sqlite3``."""
        url = settings.database
        if url is not None:
            return cls(server_database(str(url)), hasher=hasher)
        return cls(settings.data_dir / ACCOUNTS_FILE, hasher=hasher)

    # ----------------------------------------------------------------------------- users
    def add_user(self, name: str, password: str) -> User:
        """A new account; :class:`ConflictError` if the name (case-folded) is taken."""
        clean = check_user_name(name)
        digest = self.hasher.hash(check_password(password))
        user = User(id=uuid.uuid4().hex, name=clean)
        try:
            with self._write, self.db.write() as conn:
                conn.execute(users.insert().values(
                    id=user.id, name=clean, name_key=name_key(clean), password_hash=digest,
                    created_at=time.time()))
        except IntegrityError as e:
            raise ConflictError("error.account.taken", name=clean) from e
        return user

    def user(self, user_id: str) -> User:
        with self.db.read() as conn:
            row = conn.execute(select(users.c.id, users.c.name).where(
                users.c.id == user_id)).first()
        if row is None:
            raise NotFoundError("error.account.no_user")
        return _user(row)

    def users(self) -> list[User]:
        with self.db.read() as conn:
            rows = conn.execute(select(users.c.id, users.c.name).order_by(
                users.c.created_at)).all()
        return [_user(r) for r in rows]

    def verify(self, name: str, password: str) -> User | None:
        """The user whose name and password these are, else ``None`` (same cost either way)."""
        with self.db.read() as conn:
            row = conn.execute(select(users.c.id, users.c.name, users.c.password_hash).where(
                users.c.name_key == name_key(name))).first()
        stored = str(row[2]) if row else self._dummy
        try:
            self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        if row is None:
            return None
        if self.hasher.check_needs_rehash(stored):
            with self._write, self.db.write() as conn:
                conn.execute(update(users).where(users.c.id == row[0]).values(
                    password_hash=self.hasher.hash(password)))
        return _user(row)

    # ---------------------------------------------------------------------------- tokens
    def new_token(self, user_id: str, label: str = "") -> tuple[str, TokenInfo]:
        """A new API token for ``user_id``: (the secret, shown once; its stored record)."""
        if len(label) > MAX_LABEL:
            raise InvalidInputError("error.account.token_label", most=MAX_LABEL)
        self.user(user_id)
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = TokenInfo(id=uuid.uuid4().hex[:16], label=label.strip(), created_at=time.time())
        with self._write, self.db.write() as conn:
            conn.execute(tokens.insert().values(
                id=info.id, user_id=user_id, token_hash=token_hash(secret), label=info.label,
                created_at=info.created_at))
        return secret, info

    def tokens(self, user_id: str) -> list[TokenInfo]:
        with self.db.read() as conn:
            rows = conn.execute(select(tokens.c.id, tokens.c.label, tokens.c.created_at).where(
                tokens.c.user_id == user_id).order_by(tokens.c.created_at)).all()
        return [TokenInfo(str(r[0]), str(r[1]), float(r[2])) for r in rows]

    def revoke_token(self, user_id: str, token_id: str) -> None:
        """Delete one of ``user_id``'s tokens (another user's token id is not found)."""
        with self._write, self.db.write() as conn:
            gone = conn.execute(delete(tokens).where(
                tokens.c.id == token_id, tokens.c.user_id == user_id)).rowcount
        if not gone:
            raise NotFoundError("error.account.no_token")

    def user_of_token(self, token: str) -> User | None:
        if not token.startswith(TOKEN_PREFIX):
            return None
        with self.db.read() as conn:
            row = conn.execute(select(users.c.id, users.c.name).join(
                tokens, tokens.c.user_id == users.c.id).where(
                tokens.c.token_hash == token_hash(token))).first()
        return _user(row) if row else None


class SessionStore:
    """Server-side sessions (in the accounts database): the signed cookie carries a random
    session id, so logging out ends that session even if the cookie was copied."""

    def __init__(self, accounts: AccountStore, max_age_s: float) -> None:
        self.accounts = accounts
        self.max_age_s = max_age_s

    def start(self, user_id: str) -> str:
        sid = secrets.token_urlsafe(32)
        now = time.time()
        with self.accounts._write, self.accounts.db.write() as conn:
            conn.execute(delete(sessions).where(sessions.c.created_at < now - self.max_age_s))
            conn.execute(sessions.insert().values(id_hash=token_hash(sid), user_id=user_id,
                                                  created_at=now))
        return sid

    def user(self, sid: str) -> User | None:
        with self.accounts.db.read() as conn:
            row = conn.execute(select(users.c.id, users.c.name).join(
                sessions, sessions.c.user_id == users.c.id).where(
                sessions.c.id_hash == token_hash(sid),
                sessions.c.created_at >= time.time() - self.max_age_s)).first()
        return _user(row) if row else None

    def end(self, sid: str) -> None:
        with self.accounts._write, self.accounts.db.write() as conn:
            conn.execute(delete(sessions).where(sessions.c.id_hash == token_hash(sid)))


class LoginLimiter:
    """Failed logins per key (name, address) in a sliding window; thread-safe, in memory.

    A node forgets on restart; several nodes each count their own (so behind a proxy without
    affinity a name gets up to ``attempts`` tries per node in a window)."""

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
