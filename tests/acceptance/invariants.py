"""The invariant checker lives in the package (:mod:`aizac.writer.invariants`): ``aizac db
import`` verifies what it moved with it. Re-exported here for the tests that import it."""

from aizac.writer.invariants import Report, check_project

__all__ = ["Report", "check_project"]
