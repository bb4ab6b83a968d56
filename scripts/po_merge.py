"""A git merge driver for the catalogues: a three-way merge entry by entry (by msgid key).

Git's line merge of two branches that both add keys to a sorted .po file conflicts, and the
``union`` driver keeps both copies of an entry that both sides changed (duplicate msgids that
Babel silently collapses). This merges whole entries instead: a key added on one side is
added, removed on one side is removed, changed on one side takes that change; changed
differently on both sides keeps ours and is named on stderr (exit 1, so git reports it).
The result is sorted by key, as the catalogue files are kept.

Set up once per clone::

    git config merge.po-entries.driver "python scripts/po_merge.py %O %A %B"

(``.gitattributes`` names the driver for ``aizac/text/locales/*/LC_MESSAGES/*.po``).
Run by hand: ``python scripts/po_merge.py BASE OURS THEIRS`` writes the result into OURS.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_MSGID = re.compile(r'^msgid "(.*)"$', re.MULTILINE)


def split(text: str) -> tuple[str, dict[str, str]]:
    """The header and the entries by key, each entry verbatim: its comment lines, its msgid,
    msgstr and continuation lines (an entry ends at a blank line or at the next comment)."""
    header: list[str] = []
    entries: dict[str, str] = {}
    pending: list[str] = []  # comment lines waiting for their msgid
    current: list[str] | None = None
    key = ""

    def close() -> None:
        if current is not None:
            if key:
                entries[key] = "\n".join(current)  # a duplicate (union leftovers): the last
            else:
                header.append("\n".join(current))

    for line in text.splitlines():
        if line.startswith("#"):
            if current is not None and not pending:
                close()
                current = None
            pending.append(line)
        elif line.startswith("msgid "):
            close()
            found = _MSGID.match(line)
            key = found.group(1) if found else line
            current = [*pending, line]
            pending = []
        elif line.strip() == "":
            close()
            current = None
            if pending and not entries and not header:
                header.append("\n".join(pending))  # the file's opening comment
                pending = []
        elif current is not None:
            current.append(line)
    close()
    if pending:
        header.append("\n".join(pending))
    return "\n\n".join(header), entries


def merge(base: str, ours: str, theirs: str) -> tuple[str, list[str]]:
    """The merged file and the keys both sides changed differently (ours kept)."""
    _, b = split(base)
    header, o = split(ours)
    _, t = split(theirs)
    out: dict[str, str] = {}
    clashes: list[str] = []
    for key in sorted(set(b) | set(o) | set(t)):
        was, mine, other = b.get(key), o.get(key), t.get(key)
        if mine == other:
            chosen = mine
        elif mine == was:
            chosen = other
        elif other == was:
            chosen = mine
        else:
            chosen = mine if mine is not None else other
            clashes.append(key)
        if chosen is not None:
            out[key] = chosen
    body = "\n\n".join(out[k] for k in sorted(out))
    return f"{header}\n\n{body}\n", clashes


def main(argv: list[str]) -> int:
    base, ours, theirs = (Path(a) for a in argv[1:4])
    merged, clashes = merge(base.read_text(encoding="utf-8"), ours.read_text(encoding="utf-8"),
                            theirs.read_text(encoding="utf-8"))
    ours.write_text(merged, encoding="utf-8")
    for key in clashes:
        print(f"po_merge: {ours}: {key!r} changed on both sides; ours kept", file=sys.stderr)
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
