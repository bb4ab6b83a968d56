"""Every error message the web app can show a writer reads in Korean on a Korean page (issue 11).

The messages are found in the source with ``ast`` (every ``raise SomeAizacError(...)`` call in
the modules the web handlers reach), so a new English message without a Korean pattern fails
here instead of surfacing in English in the browser.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import aizac.errors
from aizac.text import Text, known, render
from aizac.text.catalogue import template as template_in
from aizac.text.render import placeholders
from aizac.web.labels import translate

ROOT = Path(aizac.errors.__file__).parent
PACKAGES = ("web", "writer", "export", "memory", "retrieval", "llm")
ERRORS = {
    name for name, value in vars(aizac.errors).items()
    if isinstance(value, type) and issubclass(value, aizac.errors.AizacError)
}

# A plausible value for each placeholder (by its source text), and whether it is a value the
# message only quotes (True: it may stay as it is) or words the translation must put in Korean
# (False); "module.py:name" where a name means different things in different modules. Anything
# unlisted is a number.
SAMPLES: dict[str, tuple[object, bool]] = {
    "candidate": ("someone@@example", True),
    "where": ("smtp.example.com:587", True),
    "settings.user": ("writer", True),
    "stage": ("logging in to", False),
    "e": ("disk I/O error", True),
    "e.strerror or e": ("No space left on device", True),
    "refused": ("someone@example.com", True),
    "type(e).__name__": ("TimeoutError", True),
    "sender_text": ("not-an-address", True),
    "name": ("봄날", True),
    "' '.join(bad)": (": ?", True),
    "path": ("/data/exports/봄날.md", True),
    "target": ("/data/projects/봄날/memory", True),
    "server_address(settings)": ("127.0.0.1:8000", True),
    "folder": ("/data/exports", True),
    "manuscript.title": ("봄날", True),
    "self.language": ("xx", True),
    "lang": ("xx", True),
    "', '.join(map(str, duplicates))": ("2, 3", True),
    "label": ("first", False),
    "what": ("The prose", False),
    "accepting.py:what": ("Accepting beat 1-2", False),
    "rows.py:what": ("memory write", False),
    "episodes.py:what": ("Beats per episode", False),
    "forms.py:label": ("Project name", False),
    "rules.py:what": ("beat 1-2", False),
    "manuscript.py:label": ("first", False),
    "forms.py:stage": ("crisis", False),
    "value": ("abc", True),
    "text": ("abc", True),
    "raw.strip()[:60]": ("민수 안녕", True),
    "_schema_message(e)": ("title: field required", True),
    "detail": ("current node 'n9' does not exist", True),
    "cause": ("disk I/O error", True),
    "error": ("disk I/O error", True),
    "described['en']": ("the title is empty", True),
    "model": ("model", False),
    "schema": ("NovelPlot", False),
    "clean": ("봄날", True),
    "root": ("/data/projects", True),
    "self.db_path": ("/data/projects/봄날/project.db", True),
    "staging": ("/data/projects/.봄날.new", True),
    "directory": ("/data/projects/봄날", True),
    "key.name": ("봄날", True),
    "owner": (" (pid 4242: aizac beat)", True),
    "status": ("accepted", False),
    "stored": ("bge-m3", True),
    "fingerprint": ("hash-256", True),
    "memory_dir": ("/data/projects/봄날/memory", True),
    "', '.join(missing[:5])": ("m-1, m-2", True),
    "', '.join(map(str, missing[:5]))": ("m-1, m-2", True),
    "ids": ("['m-1']", True),
    "mid": ("m-1", True),
    "later": ("m-2", True),
    "batch": ("c-1", True),
    "memory_id": ("m-1", True),
    "old['superseded_by']": ("m-2", True),
    "candidate_id": ("c-1", True),
    "self.state": ("committed", False),
    "beat_id": ("1-2", True),
    "draft.episode": (1, True),
    "draft.index": (2, True),
    "row['episode']": (1, True),
    "row['idx']": (2, True),
    "beat.episode": (1, True),
    "beat.index": (2, True),
    "stage_label": ("first", False),
    "self.role": ("writer", False),
    "cand.label": ("openai:gpt-4o-mini", True),
    "tries": (" after 3 attempts", False),
    "summarize(error)": ("could not connect to the server", False),
    "resilient.py:what": ("the reply was cut at the model's token limit (finish reason: length)",
                          False),
    "env": ("AIZAC_WRITER_MODEL", True),
    "_setting(role)": ("AIZAC_WRITER_MODEL", True),
    "provider": ("foo", True),
    "spec": ("foo:bar", True),
    "kind": ("foo", True),
    "path.name": ("keys.json", True),
}
# Words a Korean message may keep as they are: settings, formats, protocols, the program's name.
KEPT = re.compile(
    r"AIZAC_\w+|OPENAI_\w+|SMTP|UTF-8|JSON|Chroma|NUL|TLS|MB|API|HTTP|aizac|OpenAI"
    r"|sentence-transformers"
)

# Messages no writer meets in the web app, by the start of their template ("{}" per placeholder).
SKIPPED = (
    # CLI only: they name command-line flags
    "--out ",
    # programming errors: a caller broke a function's contract (types, internal ids, names)
    "The email address must be text.",
    "The export name must be text",
    "Episode number must be a whole number from 1 up",  # EpisodeText is built from the store
    "Episode {}: title and prose must be text.",
    "Episodes must be EpisodeText objects",
    "Unknown export format",  # the web offers a fixed list
    "An embedded Chroma store needs a folder.",
    "{} is not a valid memory namespace.",
    "Invalid memory collection name",
    "Memory strength must be",
    "The forgetting threshold must",
    "turns must be >= 0",
    "advance() takes",
    "The story turn must be",
    "finish_beat() takes",
    "where must be a dict",
    "recall() needs",
    "k must be a positive integer",
    "max_tokens must be",
    "Cannot open memory collection",
    "Chroma rejected the request",
    "The embeddings returned",
    "aliases must be a list",
    "An alias must be a string",
    "An alias cannot contain",
    "extra metadata key",
    "An 'address' relation names its speaker",  # the dialogue code always names them
    "extra[{}]",
    "A CharacterRelation",
    "character1/character2 only apply",
    "aliases only apply",
    "foreshadow applies",
    "keyword must be a string",
    "aspect {} does not apply",
    "Unknown aspect",
    "Unknown memory tag",
    "Unknown memory field(s)",
    "A Character memory needs",
    "A memory needs non-empty text.",
    "{} must be a whole number >= 0",
    "{} is a staged candidate",
    "This batch already supersedes",
    "No staged candidate",
    "Only a committed batch",
    "This candidate batch is already",
    "The retrieval view of WriterMemory",
    "MemoryVectorStore wraps",
    "strategy='structured'",
    "Unknown self-query strategy",
    "Invalid node kind",
    "commit_ids must be",
    "Every commit id must",
    "The {} is not JSON-serialisable",
    "The root node cannot",
    "No undo-tree node",  # tree ids come from tree.path()
    "An edit cannot move a beat",
    "Cannot lock",
    "The author must be text",  # the web passes no author
    "Unknown language {}.",  # the web offers a fixed list
    # filters the model writes: the self-query retriever catches these and searches without them
    "No character called",
    "The name {} is ambiguous",
    "Memories have no field",
    "Comparator ",
    "A list is only allowed",
    "Expected a text value",
    "Expected a non-empty text value.",
    "{} is a number",
    "{} is true or false",
    "{} can only be compared",
    "{} needs at least one value.",
    "'time' counts turns",
    # a caller's programming error: roles come from a fixed list
    "Unknown role",
    "models= has an unknown role",
    # installation defects (the prompt templates ship with aizac)
    "Prompt template",
    "Unknown prompt kind",
)


def _module_constants(tree: ast.Module) -> dict[str, str]:
    return {
        node.targets[0].id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _render(
    node: ast.expr, constants: dict[str, str], module: str
) -> tuple[str, str, list[str]] | None:
    """(template, sample message, the quoted values in it) for a message argument, or None
    for one that is not a literal (a parameter, ``str(e)``)."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "redact" and node.args:
        node = node.args[0]  # secrets taken out of the message: the message itself
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, node.value, []
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id], constants[node.id], []
    if not isinstance(node, ast.JoinedStr):
        return None
    template, message, values = "", "", []
    for part in node.values:
        if isinstance(part, ast.Constant):
            template += str(part.value)
            message += str(part.value)
            continue
        assert isinstance(part, ast.FormattedValue)
        source = ast.unparse(part.value)
        sample, quoted = SAMPLES.get(f"{module}:{source}", SAMPLES.get(source, (7, True)))
        text = repr(sample) if part.conversion == ord("r") else sample
        if part.format_spec is not None:
            text = format(text, "".join(str(c.value) for c in part.format_spec.values
                                        if isinstance(c, ast.Constant)))
        template += "{}"
        message += str(text)
        if quoted:
            values.append(str(text))
    return template, message, values


def error_messages() -> list[tuple[str, str, str, list[str]]]:
    """(where, template, sample message, quoted values) of every AizacError raised with a
    literal message in the modules the web app reaches."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            constants = _module_constants(tree)
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in ERRORS and node.args):
                    rendered = _render(node.args[0], constants, path.name)
                    if rendered is not None:
                        where = f"{package}/{path.name}:{node.lineno}"
                        found.append((where, *rendered))
    return found


def _english_left(korean: str, values: list[str]) -> list[str]:
    """English words of 3+ letters in ``korean`` outside the quoted values and kept names."""
    rest = korean
    for value in sorted(values, key=len, reverse=True):
        rest = rest.replace(value, " ")
    rest = KEPT.sub(" ", rest)
    return re.findall(r"[A-Za-z]{3,}", rest)


def template_of(key: str) -> str:
    return template_in(key, "ko") or ""


def test_every_error_the_web_app_shows_is_in_korean() -> None:
    checked, untranslated = 0, []
    for where, template, message, values in error_messages():
        if template.startswith(SKIPPED):
            continue
        checked += 1
        korean = (render(Text(template, dict.fromkeys(placeholders(template_of(template)), "값")),
                         "ko") if known(template) else translate(message, "ko"))
        if not re.search(r"[가-힣]", korean) or _english_left(korean, values):
            untranslated.append(f"{where}: {message!r} -> {korean!r}")
    assert not untranslated, "no Korean for:\n" + "\n".join(untranslated)
    assert checked > 60, checked  # the finder still finds the messages


def test_every_skipped_message_still_exists() -> None:
    """The skip list names messages that are still raised (a stale entry hides nothing)."""
    templates = [template for _, template, _, _ in error_messages()]
    stale = [s for s in SKIPPED if not any(t.startswith(s) for t in templates)]
    assert not stale, stale
