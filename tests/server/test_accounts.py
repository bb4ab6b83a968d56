"""Accounts as an attacker and as an operator would try them: login floods with random names
from one address, the cost of a failed login, weak passwords, look-alike names, API tokens
(minted by sessions only, expiry, cap, scope, revoking all and a token's children)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient

from aizac.errors import ConflictError, InvalidInputError
from aizac.server.accounts import AccountStore, LoginLimiter
from aizac.server.errors import UnavailableError
from aizac.server.policy import check_password, skeleton
from tests.server.conftest import PASSWORD, browser, signup

pytestmark = pytest.mark.timeout(600)
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}


class CountingHasher(PasswordHasher):
    """A cheap argon2 profile that counts (and can slow down) its verifications."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__(**CHEAP)
        self.verified = 0
        self.delay = delay

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verified += 1
        time.sleep(self.delay)
        return super().verify(hash, password)


def test_a_flood_of_random_names_from_one_address_is_limited(
        make_app: Callable[..., FastAPI]) -> None:
    """The issue: 200 tries with random names, 0 x 429. Now the address is limited, and the
    names refused after the limit cost no password check."""
    app = make_app(login_attempts_per_address=10, login_window_s=60)
    hasher = CountingHasher()
    app.state.aizac.accounts.hasher = hasher
    statuses = []
    with browser(app) as c:
        for _ in range(200):
            reply = c.post("/api/v1/auth/login",
                           json={"name": f"u{uuid.uuid4().hex[:10]}", "password": "whatever1"})
            statuses.append(reply.status_code)
    assert statuses[:10] == [401] * 10
    assert statuses[10:] == [429] * 190
    assert hasher.verified == 10  # refused before any hashing
    limited = app.state.aizac.per_address
    assert len(limited) == 1  # one key for the address, not one per name tried


def test_simultaneous_tries_cannot_slip_under_the_limit(
        make_app: Callable[..., FastAPI]) -> None:
    """Twenty tries at once (the flood bench's shape): each is counted before its password is
    checked, so no more than the limit are hashed even while the first ones are still hashing;
    a try the server could not check (hash slots busy) is not counted as a guess."""
    app = make_app(login_attempts_per_address=5, login_window_s=60, hash_slots=4)
    hasher = CountingHasher(delay=0.3)
    app.state.aizac.accounts.hasher = hasher
    statuses: list[int] = []
    lock = threading.Lock()
    with browser(app) as c:
        def attempt() -> None:
            reply = c.post("/api/v1/auth/login",
                           json={"name": f"u{uuid.uuid4().hex[:10]}", "password": "whatever1"})
            with lock:
                statuses.append(reply.status_code)

        threads = [threading.Thread(target=attempt) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert len(statuses) == 20
    assert hasher.verified <= 5
    assert statuses.count(401) == hasher.verified
    assert statuses.count(429) == 20 - hasher.verified


def test_a_try_that_was_never_checked_is_not_counted(tmp_path: Path) -> None:
    limiter = LoginLimiter(2, 60)
    assert limiter.take("a") == 0.0
    limiter.forgive("a")  # e.g. the hash slots were busy: no answer, no guess
    assert limiter.take("a") == 0.0
    assert limiter.take("a") == 0.0
    assert limiter.take("a") > 0  # the third within the window waits
    assert len(limiter) == 1


def _login(app: FastAPI, address: str, password: str, name: str = "mina") -> int:
    with browser(app, client=(address, 5000)) as c:
        return c.post("/api/v1/auth/login",
                      json={"name": name, "password": password}).status_code


def test_one_name_is_limited_across_addresses(make_app: Callable[..., FastAPI]) -> None:
    """Past the per-name limit an address that failed already waits; a fresh one gets one
    try (guessing is bounded by the limit plus one try per fresh address)."""
    app = make_app(login_attempts=100, login_attempts_per_address=100,
                   login_attempts_per_name=4)
    hasher = CountingHasher()
    app.state.aizac.accounts.hasher = hasher
    with browser(app) as c:
        signup(c, "mina")
    hasher.verified = 0
    statuses = [[_login(app, f"10.0.0.{n}", "not her password") for _ in range(2)]
                for n in range(6)]
    assert statuses == [[401, 401], [401, 401]] + [[401, 429]] * 4
    assert hasher.verified == 8
    # An IPv6 client is counted by its /64: a fresh address in it is not a fresh client.
    assert _login(app, "2001:db8::1", "not her password") == 401
    assert _login(app, "2001:db8::2", "not her password") == 429


def test_a_stranger_cannot_lock_the_owner_out(make_app: Callable[..., FastAPI]) -> None:
    """Issue 38 item 4: ten wrong tries from ten addresses made the owner's right password
    answer 429. The per-name limit no longer applies to a clean address, nor to one the owner
    logged in from lately (even after a typo there)."""
    app = make_app(login_attempts=100, login_attempts_per_address=100,
                   login_attempts_per_name=5)
    with browser(app) as c:
        signup(c, "mina")
    assert _login(app, "192.0.2.7", PASSWORD) == 200  # the owner's usual address
    assert [_login(app, f"10.0.0.{n}", "guess number one") for n in range(10)] == [401] * 10
    assert _login(app, "10.0.0.3", "guess number two") == 429  # the stranger waits
    assert _login(app, "198.51.100.9", PASSWORD) == 200  # the owner, from a fresh address
    assert _login(app, "192.0.2.7", "a typo of hers") == 401
    assert _login(app, "192.0.2.7", PASSWORD) == 200  # known there: not refused


def test_a_failed_login_costs_the_same_for_unknown_and_known_names(tmp_path: Path) -> None:
    hasher = CountingHasher()
    store = AccountStore(tmp_path / "a.sqlite3", hasher=hasher)
    store.add_user("mina", PASSWORD)
    hasher.verified = 0
    assert store.verify("mina", "wrong password") is None
    assert store.verify("nobody-by-that-name", "wrong password") is None
    assert hasher.verified == 2  # one argon2 verification each


def test_password_checks_never_pile_up(tmp_path: Path) -> None:
    """With one hash slot, logins beyond it wait a bounded time, then are told the server is
    busy (503) instead of queueing work and memory without end."""
    store = AccountStore(tmp_path / "a.sqlite3", hasher=CountingHasher(delay=0.5),
                         hash_slots=1, hash_wait_s=0.2)
    outcomes: list[str] = []

    def attempt() -> None:
        try:
            store.verify(f"x{uuid.uuid4().hex[:6]}", "whatever")
            outcomes.append("checked")
        except UnavailableError as e:
            assert e.key == "error.server.busy_hashing"
            outcomes.append("busy")

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert outcomes.count("checked") >= 1 and outcomes.count("busy") >= 4
    assert time.monotonic() - started < 3.0


def test_the_limiter_remembers_a_bounded_number_of_keys() -> None:
    limiter = LoginLimiter(3, 60, max_keys=100)
    for n in range(10_000):
        limiter.failed(f"name{n}|127.0.0.1")
    assert len(limiter) == 100
    limiter.failed("a")
    limiter.failed("a")
    limiter.failed("a")
    assert limiter.retry_after("a") > 0


@pytest.mark.parametrize("weak", ["password", "12345678", "        ", "aaaaaaaaaaaa",
                                  "qwertyuiop", "mina1234", "iloveyou", "Password1"])
def test_weak_passwords_are_refused(weak: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        check_password(weak, name="mina")
    assert refused.value.key in ("error.server.password_weak", "error.server.password_length")
    assert repr(weak) not in str(refused.value)  # the password is never repeated


def test_weak_passwords_are_refused_over_http(client: TestClient) -> None:
    for weak in ("password", "12345678", " " * 8):
        reply = client.post("/api/v1/auth/signup", json={"name": "mina", "password": weak})
        assert reply.status_code == 422, weak
        assert reply.json()["code"] in ("error.server.password_weak",
                                        "error.server.invalid_request")
    assert check_password("correct horse battery") and check_password("회귀물 작가의 비밀 노트")


def test_look_alike_names_are_one_account(client: TestClient) -> None:
    signup(client, "alice")
    for look_alike, code in [("ａｌｉｃｅ", "error.server.name_taken"),
                             ("ALICE", "error.server.name_taken"),
                             ("аlice", "error.server.name_confusable"),  # Cyrillic а
                             ("a1ice", "error.server.name_confusable"),
                             ("alIce", "error.server.name_taken")]:
        reply = client.post("/api/v1/auth/signup",
                            json={"name": look_alike, "password": PASSWORD})
        assert reply.status_code == 409, (look_alike, reply.text)
        assert reply.json()["code"] == code, look_alike
    login = client.post("/api/v1/auth/login", json={"name": "ａｌｉｃｅ", "password": PASSWORD})
    assert login.status_code == 200 and login.json()["name"] == "alice"
    assert client.post("/api/v1/auth/signup", json={"name": "지우", "password": PASSWORD}
                       ).status_code == 201
    assert skeleton("ｍｉｎａ") == skeleton("mina") != skeleton("jun")


def test_a_store_made_before_roles_and_skeletons_is_migrated(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL
            UNIQUE, password_hash TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE tokens (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, token_hash TEXT NOT
            NULL UNIQUE, label TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE sessions (id_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL,
            created_at REAL NOT NULL);""")
    digest = PasswordHasher(**CHEAP).hash(PASSWORD)
    db.execute("INSERT INTO users VALUES ('u1', 'alice', 'alice', ?, 1.0)", (digest,))
    db.commit()
    db.close()
    store = AccountStore(path, hasher=PasswordHasher(**CHEAP))
    user = store.verify("alice", PASSWORD)
    assert user is not None and user.role == "user" and not user.disabled
    with pytest.raises(ConflictError):
        store.add_user("аlice", PASSWORD)


# ---------------------------------------------------------------------------------- tokens
def _token(c: TestClient, **body: object) -> dict[str, object]:
    reply = c.post("/api/v1/auth/tokens", json=body)
    assert reply.status_code == 201, reply.text
    return dict(reply.json())


def test_only_a_session_mints_tokens(app: FastAPI) -> None:
    """The issue: a token minted tokens that outlived its revocation."""
    with browser(app) as mina:
        signup(mina, "mina")
        token = str(_token(mina, label="cron")["token"])
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as script:
        minted = script.post("/api/v1/auth/tokens", json={"label": "child"})
        assert minted.status_code == 403
        assert minted.json()["code"] == "error.server.token_needs_session"
        assert script.get("/api/v1/projects").status_code == 200


def test_a_revoked_tokens_children_die_with_it(tmp_path: Path) -> None:
    """Tokens minted by tokens before this rule (their parent recorded) go with it."""
    store = AccountStore(tmp_path / "a.sqlite3", hasher=PasswordHasher(**CHEAP))
    user = store.add_user("mina", PASSWORD)
    parent_secret, parent = store.new_token(user.id, "parent")
    child_secret, child = store.new_token(user.id, "child", parent_id=parent.id)
    grandchild_secret, _ = store.new_token(user.id, "grandchild", parent_id=child.id)
    other_secret, _ = store.new_token(user.id, "other")
    assert store.revoke_token(user.id, parent.id) == 3
    for gone in (parent_secret, child_secret, grandchild_secret):
        assert store.token_user(gone) is None
    assert store.token_user(other_secret) is not None


def test_tokens_expire_are_capped_and_revoke_all_at_once(
        make_app: Callable[..., FastAPI]) -> None:
    app = make_app(max_tokens_per_user=3)
    accounts = app.state.aizac.accounts
    now = [time.time()]
    accounts.clock = lambda: now[0]
    with browser(app) as mina:
        signup(mina, "mina")
        short = _token(mina, label="a day", expires_in_days=1)
        assert short["expires_at"] == pytest.approx(now[0] + 86400)
        forever = _token(mina, label="forever")
        _token(mina, label="third")
        capped = mina.post("/api/v1/auth/tokens", json={"label": "fourth"})
        assert capped.status_code == 429 and capped.json()["code"] == "error.server.token_cap"
        with TestClient(app) as script:
            bearer = {"Authorization": f"Bearer {short['token']}"}
            assert script.get("/api/v1/projects", headers=bearer).status_code == 200
            now[0] += 86401
            assert script.get("/api/v1/projects", headers=bearer).status_code == 401
            assert len(mina.get("/api/v1/auth/tokens").json()) == 2  # the expired one is gone
            revoked = mina.delete("/api/v1/auth/tokens")
            assert revoked.status_code == 200 and revoked.json() == {"count": 2}
            assert script.get("/api/v1/projects", headers={
                "Authorization": f"Bearer {forever['token']}"}).status_code == 401


def test_a_read_only_token_changes_nothing(app: FastAPI) -> None:
    with browser(app) as mina:
        signup(mina, "mina")
        mina.post("/api/v1/projects", json={"name": "novel", "keywords": "ring"})
        token = _token(mina, label="monitor", scope="read")["token"]
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as script:
        assert script.get("/api/v1/projects/novel").status_code == 200
        for method, path in [("POST", "/api/v1/projects"), ("DELETE", "/api/v1/projects/novel"),
                             ("POST", "/api/v1/projects/novel/undo")]:
            reply = script.request(method, path, json={"name": "x", "keywords": "a"})
            assert reply.status_code == 403, (method, path)
            assert reply.json()["code"] == "error.server.token_read_only"


def test_every_account_rule_holds_on_both_engines(tmp_path: Path, database_url: str | None
                                                  ) -> None:
    """Roles, the last admin, disabling, look-alikes, token scope, expiry, cap and children,
    and sessions: the same on the embedded file and on PostgreSQL (``AIZAC_DATABASE_URL``)."""
    from aizac.errors import LimitError, NotFoundError
    from aizac.settings import Settings

    settings = Settings(data_dir=tmp_path, language="en", database_url=database_url)
    now = [1000.0]
    store = AccountStore.open(settings, hasher=PasswordHasher(**CHEAP), clock=lambda: now[0])
    assert (store.path is None) == (database_url is not None)
    admin = store.add_user("admin", PASSWORD, role="admin")
    mina = store.add_user("mina", PASSWORD)
    with pytest.raises(ConflictError) as confusable:
        store.add_user("mіna", PASSWORD)  # Cyrillic і
    assert confusable.value.key == "error.server.name_confusable"
    with pytest.raises(ConflictError) as taken:
        store.add_user("ＭＩＮＡ", PASSWORD)
    assert taken.value.key == "error.server.name_taken"
    with pytest.raises(ConflictError) as last:
        store.set_role(admin.id, "user")
    assert last.value.key == "error.server.last_admin"
    assert store.user(admin.id).admin and store.count_admins() == 1

    sid = store.start_session(mina.id, 3600)
    read, info = store.new_token(mina.id, "reader", scope="read", expires_in_s=60)
    child, _ = store.new_token(mina.id, "child", parent_id=info.id)
    found = store.token_user(read)
    assert found is not None and found[1].scope == "read" and found[1].expires_at == 1060.0
    store.set_disabled(mina.id, True)
    assert store.session_user(sid, 3600) is None and store.token_user(read) is None
    store.set_disabled(mina.id, False)
    assert store.token_user(read) is not None and store.session_user(sid, 3600) is None
    now[0] += 61  # the read token expired; its child did not
    assert store.token_user(read) is None and store.token_user(child) is not None
    with pytest.raises(LimitError):
        for n in range(25):
            store.new_token(mina.id, f"t{n}", cap=3)
    assert len(store.tokens(mina.id)) == 3
    assert store.revoke_tokens(mina.id) == 3 and store.tokens(mina.id) == []

    store.set_language(mina.id, "ko")
    assert store.by_name("MINA").language == "ko"
    store.delete_user(mina.id)
    with pytest.raises(NotFoundError):
        store.user(mina.id)
    with pytest.raises(ConflictError):
        store.delete_user(admin.id)  # the last administrator stays
