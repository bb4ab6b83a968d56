"""Accounts of the multi-user server: users, sessions, API tokens.

:class:`AccountStore` is the server's only account storage interface (its public methods);
:class:`SessionStore` and the routes never touch SQL. Embedded, one SQLite file
(``<data_dir>/server/accounts.sqlite3``, mode 0600 with its WAL files); with
``AIZAC_DATABASE_URL``, the tables of :data:`aizac.storage.tables.users` and its neighbours in
the PostgreSQL database, so every replica of ``aizac serve`` knows every account, token and
session (:meth:`AccountStore.open` picks). Every change is one transaction, so a crash never
leaves half a user; a check and the write that follows it are one (``BEGIN IMMEDIATE`` on
SQLite, an advisory lock on PostgreSQL), across processes and replicas too.

Passwords are argon2id hashes (``argon2-cffi``); a password check runs in one of a few *hash
slots* (argon2 is made to be costly: a flood of logins must not pile up work and memory), and
a login for an unknown name verifies a dummy hash, so failing costs the same either way. API
tokens are random 256-bit secrets shown once and stored as their SHA-256 (high-entropy, so a
fast hash is enough and lets a request find its token); each has a scope (``write`` or
``read``), an optional expiry, and the token it was minted from, if any: revoking a token
revokes the ones minted from it.

Users have a role (``user`` or ``admin``), may be disabled (no login; their sessions and tokens
stop working at once), and may choose the language of the server's messages.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, delete, func, literal, select, update
from sqlalchemy.exc import IntegrityError

from aizac.errors import ConflictError, InvalidInputError, NotFoundError, StorageError
from aizac.server.errors import UnavailableError, clip
from aizac.server.policy import check_password, check_user_name, name_key, skeleton
from aizac.settings import Settings
from aizac.storage.database import Database, server_database, sqlite_file
from aizac.storage.tables import sessions, tokens, users

TOKEN_PREFIX = "aizac_"
ROLES = ("user", "admin")
SCOPES = ("write", "read")
MAX_LABEL = 80  # characters of an API token's label
ACCOUNTS_FILE = Path("server") / "accounts.sqlite3"
"""The embedded accounts file, relative to the data directory."""
_WRITE_KEY = "aizac.accounts"
"""What the PostgreSQL advisory lock of an account write is taken on."""
_USER_COLUMNS = (users.c.id, users.c.name, users.c.role, users.c.disabled, users.c.language,
                 users.c.created_at)
_TOKEN_COLUMNS = (tokens.c.id, tokens.c.label, tokens.c.created_at, tokens.c.scope,
                  tokens.c.expires_at, tokens.c.parent_id)


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


def _user(row: Sequence[Any]) -> User:
    return User(str(row[0]), str(row[1]), str(row[2]), bool(row[3]),
                str(row[4]) if row[4] else None, float(row[5]))


@dataclass(frozen=True)
class TokenInfo:
    """An API token's record (never its secret)."""

    id: str
    label: str
    created_at: float
    scope: str = "write"
    expires_at: float | None = None
    parent_id: str | None = None


def _token(row: Sequence[Any]) -> TokenInfo:
    return TokenInfo(str(row[0]), str(row[1]), float(row[2]), str(row[3]),
                     None if row[4] is None else float(row[4]),
                     None if row[5] is None else str(row[5]))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _admins(conn: Connection) -> int:
    """Enabled administrators."""
    return int(conn.execute(select(func.count()).select_from(users).where(
        users.c.role == "admin", users.c.disabled == 0)).scalar_one())


class AccountStore:
    """Users, sessions and API tokens in one database (thread-safe).

    Args:
        where: the embedded SQLite file (made private to the server's user), or a
            :class:`Database` (the PostgreSQL one of :meth:`open`).
        hasher: the argon2 parameters (tests pass a cheap profile).
        hash_slots: password hashes computed at once at most; more wait for a slot.
        hash_wait_s: how long a password check waits for a slot before the server says it is
            busy (503) instead of queueing without end.
        min_password_score: the zxcvbn score (0-4) a new password needs.
        clock: the wall clock (expiry of tokens and sessions).
    """

    def __init__(self, where: Path | Database, *, hasher: PasswordHasher | None = None,
                 hash_slots: int = 2, hash_wait_s: float = 10.0, min_password_score: int = 3,
                 clock: Callable[[], float] = time.time) -> None:
        self.hasher = hasher or PasswordHasher()
        self.hash_wait_s = hash_wait_s
        self.min_password_score = min_password_score
        self.clock = clock
        self._slots = threading.BoundedSemaphore(max(1, hash_slots))
        self._write = threading.Lock()  # embedded: one writer of this process at a time
        # A hash to verify against when the name is unknown: the same work either way, so
        # response times do not tell which names exist.
        self._dummy = self.hasher.hash(secrets.token_hex(8))
        if isinstance(where, Database):
            self.path: Path | None = None
            self.db = where
            self.db.ensure("accounts")
        else:
            self.path = Path(where)
            try:  # password hashes and token digests: the server's only. Made private before
                # SQLite opens it, since its WAL and shared-memory files take the file's mode
                # (a new file is made 0600 by sqlite_file).
                self.path.parent.mkdir(parents=True, exist_ok=True)
                for private in (self.path, *(self.path.with_name(self.path.name + end)
                                             for end in ("-wal", "-shm"))):
                    if private.exists():
                        os.chmod(private, 0o600)
            except OSError as e:
                raise StorageError("error.account.open", path=str(self.path),
                                   cause=str(e)) from e
            self.db = sqlite_file(self.path, "accounts", mode=0o600)
        self._fill_skeletons()

    @classmethod
    def open(cls, settings: Settings, **options: Any) -> AccountStore:
        """The installation's accounts: on the PostgreSQL database when ``settings`` name one
        (``AIZAC_DATABASE_URL``), else in ``<data_dir>/server/accounts.sqlite3``; ``options``
        as for the constructor."""
        url = settings.database
        if url is not None:
            return cls(server_database(str(url)), **options)
        return cls(settings.data_dir / ACCOUNTS_FILE, **options)

    def _fill_skeletons(self) -> None:
        """Give the accounts made (or imported) before look-alike checks their skeleton."""
        with self.db.read() as conn:
            missing = conn.execute(select(users.c.id, users.c.name).where(
                users.c.skeleton.is_(None))).all()
        if missing:
            with self._writing() as conn:
                for user_id, name in missing:
                    conn.execute(update(users).where(users.c.id == user_id).values(
                        skeleton=skeleton(str(name))))

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Connection]:
        """A write transaction that holds the accounts from its first statement (a check and
        the write that follows it are one, across processes and replicas too)."""
        with self._write, self.db.write("accounts") as conn:
            self.db.serialise(conn, _WRITE_KEY)
            yield conn

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
        look = skeleton(clean)
        try:
            with self._writing() as conn:
                if conn.execute(select(literal(1)).where(
                        users.c.name_key == name_key(clean))).first():
                    raise ConflictError("error.server.name_taken", name=clean)
                if conn.execute(select(literal(1)).where(users.c.skeleton == look)).first():
                    raise ConflictError("error.server.name_confusable", name=clean)
                conn.execute(users.insert().values(
                    id=user.id, name=clean, name_key=name_key(clean), password_hash=digest,
                    created_at=user.created_at, role=role, skeleton=look))
        except IntegrityError as e:  # taken by another process between the check and here
            raise ConflictError("error.server.name_taken", name=clean) from e
        return user

    def user(self, user_id: str) -> User:
        with self.db.read("accounts") as conn:
            row = conn.execute(select(*_USER_COLUMNS).where(users.c.id == user_id)).first()
        if row is None:
            raise NotFoundError("error.server.user_not_found")
        return _user(row)

    def by_name(self, name: str) -> User:
        with self.db.read("accounts") as conn:
            row = conn.execute(select(*_USER_COLUMNS).where(
                users.c.name_key == name_key(name))).first()
        if row is None:
            raise NotFoundError("error.server.user_not_found")
        return _user(row)

    def users(self) -> list[User]:
        with self.db.read("accounts") as conn:
            rows = conn.execute(select(*_USER_COLUMNS).order_by(users.c.created_at)).all()
        return [_user(r) for r in rows]

    def count_admins(self) -> int:
        with self.db.read("accounts") as conn:
            return _admins(conn)

    def verify(self, name: str, password: str) -> User | None:
        """The user whose name and password these are (disabled or not), else ``None``; the
        same cost either way, in a hash slot."""
        with self.db.read("accounts") as conn:
            row = conn.execute(select(*_USER_COLUMNS, users.c.password_hash).where(
                users.c.name_key == name_key(name))).first()
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
            with self._writing() as conn:
                conn.execute(update(users).where(users.c.id == row[0]).values(
                    password_hash=fresh))
        return _user(row)

    def set_password(self, user_id: str, password: str, *, keep_session: str | None = None,
                     keep_token: str | None = None) -> tuple[int, int]:
        """A new password for ``user_id`` (checked like a new account's); every other
        credential of the account ends with the old password, in the same transaction: its
        sessions but ``keep_session`` (the session id that made the change) and its API
        tokens but ``keep_token`` (the token id that made it). Returns how many sessions
        ended and how many tokens were revoked."""
        user = self.user(user_id)
        self.check_new_password(password, user.name)
        with self.hashing():
            digest = self.hasher.hash(password)
        with self._writing() as conn:
            conn.execute(update(users).where(users.c.id == user_id).values(
                password_hash=digest))
            self._drop_expired(conn, user_id, self.clock())
            ended = conn.execute(delete(sessions).where(
                sessions.c.user_id == user_id,
                sessions.c.id_hash != (token_hash(keep_session) if keep_session else ""))
            ).rowcount
            revoked = conn.execute(delete(tokens).where(
                tokens.c.user_id == user_id, tokens.c.id != (keep_token or ""))).rowcount
        return int(ended), int(revoked)

    def _update_user(self, user_id: str, values: dict[str, Any],
                     keep_an_admin: bool = False) -> None:
        with self._writing() as conn:
            if conn.execute(select(literal(1)).where(users.c.id == user_id)).first() is None:
                raise NotFoundError("error.server.user_not_found")
            conn.execute(update(users).where(users.c.id == user_id).values(**values))
            if keep_an_admin and not _admins(conn):
                raise ConflictError("error.server.last_admin")  # rolled back

    def set_disabled(self, user_id: str, disabled: bool) -> None:
        """Disable (or enable) an account; a disabled one's sessions end."""
        self._update_user(user_id, {"disabled": int(disabled)}, keep_an_admin=disabled)
        if disabled:
            self.end_sessions(user_id)

    def set_role(self, user_id: str, role: str) -> None:
        if role not in ROLES:
            raise InvalidInputError("error.server.role_invalid", role=clip(role, 20))
        self._update_user(user_id, {"role": role}, keep_an_admin=role != "admin")

    def set_language(self, user_id: str, language: str | None) -> None:
        self._update_user(user_id, {"language": language})

    def delete_user(self, user_id: str) -> None:
        """Delete the account's rows (its tokens and sessions too); the sandbox is the
        caller's (see :mod:`aizac.server.lifecycle`)."""
        with self._writing() as conn:
            row = conn.execute(select(users.c.role).where(users.c.id == user_id)).first()
            if row is None:
                raise NotFoundError("error.server.user_not_found")
            conn.execute(delete(tokens).where(tokens.c.user_id == user_id))
            conn.execute(delete(sessions).where(sessions.c.user_id == user_id))
            conn.execute(delete(users).where(users.c.id == user_id))
            if row[0] == "admin" and not _admins(conn):
                raise ConflictError("error.server.last_admin")  # rolled back

    # -------------------------------------------------------------------------- sessions
    def start_session(self, user_id: str, max_age_s: float) -> str:
        sid = secrets.token_urlsafe(32)
        now = self.clock()
        with self._writing() as conn:
            conn.execute(delete(sessions).where(sessions.c.created_at < now - max_age_s))
            conn.execute(sessions.insert().values(id_hash=token_hash(sid), user_id=user_id,
                                                  created_at=now))
        return sid

    def session_user(self, sid: str, max_age_s: float) -> User | None:
        with self.db.read("accounts") as conn:
            row = conn.execute(select(*_USER_COLUMNS).join(
                sessions, sessions.c.user_id == users.c.id).where(
                sessions.c.id_hash == token_hash(sid),
                sessions.c.created_at >= self.clock() - max_age_s,
                users.c.disabled == 0)).first()
        return _user(row) if row else None

    def end_session(self, sid: str) -> None:
        with self._writing() as conn:
            conn.execute(delete(sessions).where(sessions.c.id_hash == token_hash(sid)))

    def end_sessions(self, user_id: str, *, keep: str | None = None) -> int:
        """End every session of ``user_id`` (but ``keep``'s); how many ended."""
        with self._writing() as conn:
            return int(conn.execute(delete(sessions).where(
                sessions.c.user_id == user_id,
                sessions.c.id_hash != (token_hash(keep) if keep else ""))).rowcount)

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
        if len(label) > MAX_LABEL:
            raise InvalidInputError("error.account.token_label", most=MAX_LABEL)
        self.user(user_id)
        now = self.clock()
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = TokenInfo(id=uuid.uuid4().hex[:16], label=label.strip(), created_at=now,
                         scope=scope, expires_at=now + expires_in_s if expires_in_s else None,
                         parent_id=parent_id)
        with self._writing() as conn:
            self._drop_expired(conn, user_id, now)
            have = int(conn.execute(select(func.count()).select_from(tokens).where(
                tokens.c.user_id == user_id)).scalar_one())
            if have >= cap:
                raise LimitError("error.server.token_cap", count=have, limit=cap)
            conn.execute(tokens.insert().values(
                id=info.id, user_id=user_id, token_hash=token_hash(secret), label=info.label,
                created_at=info.created_at, scope=scope, expires_at=info.expires_at,
                parent_id=parent_id))
        return secret, info

    @staticmethod
    def _drop_expired(conn: Connection, user_id: str, now: float) -> None:
        conn.execute(delete(tokens).where(tokens.c.user_id == user_id,
                                          tokens.c.expires_at.is_not(None),
                                          tokens.c.expires_at <= now))

    def tokens(self, user_id: str) -> list[TokenInfo]:
        with self.db.read("accounts") as conn:
            rows = conn.execute(select(*_TOKEN_COLUMNS).where(
                tokens.c.user_id == user_id,
                tokens.c.expires_at.is_(None) | (tokens.c.expires_at > self.clock()),
            ).order_by(tokens.c.created_at)).all()
        return [_token(r) for r in rows]

    def revoke_token(self, user_id: str, token_id: str) -> int:
        """Delete one of ``user_id``'s tokens and every token minted from it (another
        user's token id is not found); how many went."""
        with self._writing() as conn:
            found = conn.execute(select(literal(1)).where(
                tokens.c.id == token_id, tokens.c.user_id == user_id)).first()
            if found is None:
                raise NotFoundError("error.server.token_not_found")
            top = select(tokens.c.id).where(tokens.c.id == token_id).cte(
                "tree", recursive=True)
            tree_q = top.union(select(tokens.c.id).join(top, tokens.c.parent_id == top.c.id))
            tree = [str(i) for i in conn.execute(select(tree_q.c.id)).scalars()]
            conn.execute(delete(tokens).where(tokens.c.user_id == user_id,
                                              tokens.c.id.in_(tree)))
        return len(tree)

    def revoke_tokens(self, user_id: str) -> int:
        """Delete every token of ``user_id``; how many went (live ones)."""
        with self._writing() as conn:
            self._drop_expired(conn, user_id, self.clock())
            return int(conn.execute(delete(tokens).where(
                tokens.c.user_id == user_id)).rowcount)

    def token_user(self, token: str) -> tuple[User, TokenInfo] | None:
        """The (enabled) user of a live token and the token's record, else ``None``."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        with self.db.read("accounts") as conn:
            row = conn.execute(select(*_USER_COLUMNS, *_TOKEN_COLUMNS).join(
                tokens, tokens.c.user_id == users.c.id).where(
                tokens.c.token_hash == token_hash(token), users.c.disabled == 0,
                tokens.c.expires_at.is_(None) | (tokens.c.expires_at > self.clock()),
            )).first()
        return (_user(row[:6]), _token(row[6:])) if row else None

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
        return self.claim(key)[0]

    def claim(self, key: str) -> tuple[float, bool]:
        """:meth:`take`, and whether ``key`` had no attempt in the window before this one (in
        the same step: of tries made at once, only one finds the key clean)."""
        now = self._now()
        with self._lock:
            recent = self._recent(key, now)
            if len(recent) >= self.attempts:
                return max(0.0, self.window_s - (now - recent[-self.attempts])), False
            self._failures[key] = [*recent, now]
            self._failures[key] = self._failures.pop(key)
            while len(self._failures) > self.max_keys:
                self._failures.pop(next(iter(self._failures)))
            return 0.0, not recent

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


class KnownAddresses:
    """Where each name logged in successfully lately: ``name|address`` keys with the time of
    their last success, forgotten after ``keep_s``; thread-safe, in memory, bounded like
    :class:`LoginLimiter` (the oldest go first past ``max_keys``). The per-name login limit
    does not apply to an address its owner logged in from (a stranger cannot lock them out)."""

    def __init__(self, keep_s: float, now: Callable[[], float] = time.monotonic,
                 max_keys: int = 50_000) -> None:
        self.keep_s = keep_s
        self.max_keys = max_keys
        self._now = now
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, key: str) -> None:
        with self._lock:
            self._seen.pop(key, None)
            self._seen[key] = self._now()
            while len(self._seen) > self.max_keys:
                self._seen.pop(next(iter(self._seen)))

    def __contains__(self, key: object) -> bool:
        with self._lock:
            seen = self._seen.get(str(key))
            if seen is None:
                return False
            if self._now() - seen >= self.keep_s:
                del self._seen[str(key)]
                return False
            return True

    def __len__(self) -> int:
        return len(self._seen)


__all__ = ["ACCOUNTS_FILE", "ROLES", "SCOPES", "AccountStore", "KnownAddresses", "LoginLimiter",
           "SessionStore", "TokenInfo", "User", "name_key"]
