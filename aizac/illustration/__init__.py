"""Covers and scene illustrations drawn from the story bible.

Pure parts: :mod:`~aizac.illustration.looks` (what holds at a point of the story),
:mod:`~aizac.illustration.prompts` (prompt assembly). Reads: :mod:`~aizac.illustration.sources`.
"""
