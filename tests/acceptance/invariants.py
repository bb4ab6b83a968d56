"""The invariant checker lives in the package (:mod:`aizac.upkeep.invariants`): ``aizac db
import`` verifies what it moved with it. Re-exported here for the tests that import it."""

from aizac.upkeep.invariants import Report, check_project

__all__ = ["Report", "check_project"]
