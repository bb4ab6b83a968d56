"""Continuity: a drafted episode checked against canon before it becomes canon.

* :func:`check_episode` — deterministic checks over plain data (a dead or absent character
  speaking or acting, a character in the wrong place, a superseded relation used as current, a
  pinned fact negated, a secret a character cannot know), open foreshadowing past due, beat
  coverage and new names; optionally a model check through the ``reviewer`` role whose findings
  must cite an existing memory.
* :class:`ContinuityReport`, :class:`Finding`, :class:`NameResolution` — what it returns.
"""

from __future__ import annotations

from aizac.continuity.check import check_episode
from aizac.continuity.report import KINDS, ContinuityReport, Finding, NameResolution

__all__ = ["KINDS", "ContinuityReport", "Finding", "NameResolution", "check_episode"]
