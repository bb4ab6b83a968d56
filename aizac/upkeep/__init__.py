"""Keeping what a writer made: check a project's stores, back them up, restore a backup.

:mod:`~aizac.upkeep.layout` knows a project folder's files, where its backups go and what a
quick look finds damaged; :mod:`~aizac.upkeep.archive` writes and verifies a backup file;
:mod:`~aizac.upkeep.backup` takes a consistent backup while the app may be running (SQLite's
online backup API, Chroma's files checked still around the copy, the database's own
consistent snapshot on PostgreSQL); :mod:`~aizac.upkeep.restore` puts one back all or nothing
(staged, then renamed into place; a restore killed at any moment is finished or undone by the
next one); :mod:`~aizac.upkeep.check` verifies every store of a project.
"""
