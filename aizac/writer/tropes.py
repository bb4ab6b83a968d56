"""What the writer's prompts take from the cliché database: tropes for the plot, next-beat hints.

Both degrade to an empty note when there is no cliché database, so a project works without it.
The database given is usually a :class:`~aizac.cliches.ProjectCliches` (relevant results only, in
the project's language): its ``language`` names the language the tropes are rendered in.
"""

from __future__ import annotations

from aizac.errors import AizacError, InvalidInputError
from aizac.writer.ports import Cliches
from aizac.writer.prompt_words import prompt_words


def plot_tropes(
    cliches: Cliches | None, keywords: list[str], genre: str, *, max_tokens: int
) -> str:
    """The tropes fitting ``keywords`` (in ``genre`` when the database knows it), rendered for
    the plot prompt within ``max_tokens``; empty without a database or keywords."""
    if cliches is None or not keywords:
        return ""
    from aizac.cliches import render_tropes_for_prompt

    try:
        arcs = cliches.expand_keywords(keywords, 3, genre=genre or None)
    except InvalidInputError:  # a genre the database does not know
        arcs = cliches.expand_keywords(keywords, 3)
    language = str(getattr(cliches, "language", "en"))
    words = prompt_words(language)
    return render_tropes_for_prompt(list(arcs), max_tokens=max_tokens, language=language,
                                    labels=words.cliches, stages=words.stages)


def suggestion_lines(cliches: Cliches | None, text: str, stage: str) -> str:
    """Three next-beat hints after ``text`` at ``stage``, one ``- summary (hook)`` per line;
    ``-`` when there are none or the database fails."""
    if cliches is None:
        return "-"
    try:
        hits = cliches.suggest_next(text, stage, k=3)
    except AizacError:
        return "-"
    return "\n".join(f"- {h.summary} ({h.hook})" for h in hits) or "-"
