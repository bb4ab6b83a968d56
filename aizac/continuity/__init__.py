"""Continuity: a drafted episode checked against canon before it becomes canon.

* :func:`check_episode` — deterministic checks over plain data (a dead or absent character
  speaking or acting, a character in the wrong place, a superseded relation used as current, a
  pinned fact negated, a secret a character cannot know), open foreshadowing past due, beat
  coverage and new names; optionally a model check through the ``reviewer`` role whose findings
  must cite an existing memory. :func:`check_draft` is the same check as a pure function.
* :class:`ContinuityReport`, :class:`Finding`, :class:`NameResolution` — what it returns.
* :class:`ForeshadowingLedger` — planted threads whose urgency grows with age;
  :class:`SecretsRegistry` — who knows each secret. Both persist in the project folder's
  ``continuity.sqlite``; :func:`record_episode` keeps them in step after a commit.
"""

from __future__ import annotations

from aizac.continuity.books import Books, open_books, record_episode
from aizac.continuity.check import check_draft, check_episode
from aizac.continuity.ledger import ForeshadowingLedger, Thread, overdue_threads, urgency
from aizac.continuity.report import KINDS, ContinuityReport, Finding, NameResolution
from aizac.continuity.secrets import Secret, SecretsRegistry, learned_in

__all__ = [
    "KINDS",
    "Books",
    "ContinuityReport",
    "Finding",
    "ForeshadowingLedger",
    "NameResolution",
    "Secret",
    "SecretsRegistry",
    "Thread",
    "check_draft",
    "check_episode",
    "learned_in",
    "open_books",
    "overdue_threads",
    "record_episode",
    "urgency",
]
