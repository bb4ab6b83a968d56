"""Quality proxies of the demo pipeline on the real local model (SmolLM2 via llama-cpp).

Runs what ``aizac demo`` runs (plan -> one episode of N beats -> accept -> prose) on a temporary
data directory, per language, and prints simple, honest proxies:

- ``distinct``: distinct sentences / sentences in the prose (1.0 = no repeated sentence);
- ``copied``: prose lines that copy prompt text (instructions, notes, labels; the beat's own
  dialogue lines are not counted, the prose is meant to use them);
- ``title``: prose lines containing the plot title;
- ``names``: plot and beat character names that look like names (1-4 words, no sentence
  punctuation, no schema words);
- ``words``: prose words (characters / 2 for Korean and Chinese) per beat;
- wall time.

    python bench/local_quality.py                 # en and ko, 3 beats each
    python bench/local_quality.py --lang en --beats 3 --show
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aizac.settings import get_settings
from aizac.writer.service import Studio

DEMOS = {
    "en": ("regression, revenge", "modern fantasy"),
    "ko": ("회귀, 복수", "현대판타지"),
    "zh": ("重生, 复仇", "现代奇幻"),
}
SENTENCE = re.compile(r"(?<=[.!?。！？…])\s+|\n+")
SCHEMA_WORDS = re.compile(r"(?i)dialogue|speaker|character|name|protagonist|antagonist|json")
NAME_PUNCT = re.compile(r"[.!?:;,。，：；\"“”()\[\]{}]")


class RecordingRouter:
    """Delegates to a router and keeps the prose prompts it streams."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.prose_prompts: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def stream(self, role: str, messages: Any) -> Iterator[str]:
        if role == "writer":
            self.prose_prompts.append("\n".join(m.text for m in messages))
        return self.inner.stream(role, messages)


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def _grams(text: str, n: int = 8) -> set[str]:
    t = _norm(text)
    return {t[i : i + n] for i in range(max(len(t) - n + 1, 0))}


def sentences(text: str) -> list[str]:
    return [s for s in (_norm(p) for p in SENTENCE.split(text)) if len(s) >= 3]


def distinct_ratio(text: str) -> float:
    s = sentences(text)
    return len(set(s)) / len(s) if s else 0.0


def copied_lines(prose: str, prompt: str, dialogue: list[str]) -> tuple[int, int]:
    """(lines copying prompt text, lines): >= 60% of a line's 8-grams occur in the prompt
    with the beat's dialogue lines removed."""
    for line in dialogue:
        prompt = prompt.replace(line, " ")
    source = _grams(prompt)
    lines = [ln for ln in prose.splitlines() if len(_norm(ln)) >= 4]
    copied = 0
    for ln in lines:
        g = _grams(ln) or {_norm(ln)}
        if len(g & source) >= 0.6 * len(g):
            copied += 1
    return copied, len(lines)


def looks_like_name(name: str) -> bool:
    words = name.split()
    return 1 <= len(words) <= 4 and not NAME_PUNCT.search(name) and not SCHEMA_WORDS.search(
        name
    )


def word_count(text: str, lang: str) -> int:
    return len(text.split()) if lang == "en" else len(re.sub(r"\s+", "", text)) // 2


@dataclass
class Result:
    lang: str
    title: str
    names_ok: int
    names: int
    distinct: float
    copied: int
    lines: int
    title_lines: int
    words: float
    seconds: float
    prose: list[str]
    characters: list[str]


def run(lang: str, beats: int, max_tokens: int) -> Result:
    keywords, genre = DEMOS[lang]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        settings = get_settings().model_copy(
            update={"data_dir": Path(tmp), "local_max_tokens": max_tokens}
        )
        studio = Studio(settings, beats_per_episode=beats)
        agent = studio.create(f"bench-{lang}", keywords, genre=genre, language=lang)
        recorder = RecordingRouter(agent.router)
        agent.router = recorder
        plot = agent.plan().plot
        names = [c.name for c in plot.characters]
        prose: list[str] = []
        dialogue: list[str] = []
        for _ in range(beats):
            draft = agent.next_beat()
            agent.accept(draft.id)
            names += draft.beat.characters
            dialogue += [d.line for d in draft.beat.dialogue]
            text = "".join(agent.write_prose(draft.id))
            prose.append(agent.store.beat(draft.id).prose or text)
    seconds = time.perf_counter() - started
    copied = total = title_lines = 0
    for text, prompt in zip(prose, recorder.prose_prompts, strict=False):
        c, n = copied_lines(text, prompt, dialogue)
        copied += c
        total += n
        title_lines += sum(
            1 for ln in text.splitlines() if _norm(plot.title) and _norm(plot.title) in _norm(ln)
        )
    unique = list(dict.fromkeys(names))
    return Result(
        lang=lang,
        title=plot.title,
        names_ok=sum(looks_like_name(n) for n in unique),
        names=len(unique),
        distinct=distinct_ratio("\n".join(prose)),
        copied=copied,
        lines=total,
        title_lines=title_lines,
        words=sum(word_count(p, lang) for p in prose) / max(len(prose), 1),
        seconds=seconds,
        prose=prose,
        characters=unique,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", action="append", choices=sorted(DEMOS))
    parser.add_argument("--beats", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=512, help="as `aizac demo`")
    parser.add_argument("--show", action="store_true", help="print the prose and names")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, lang=["en"], beats=1)
    results = [run(lang, args.beats, args.max_tokens) for lang in args.lang or ["en", "ko"]]
    print(
        f"{'lang':4} {'distinct':>8} {'copied':>10} {'title':>6} {'names ok':>9} "
        f"{'words/beat':>10} {'wall s':>7}  plot title"
    )
    for r in results:
        print(
            f"{r.lang:4} {r.distinct:8.2f} {r.copied:4}/{r.lines:<5} {r.title_lines:6} "
            f"{r.names_ok:4}/{r.names:<4} {r.words:10.0f} {r.seconds:7.0f}  {r.title[:40]}"
        )
    if args.show:
        for r in results:
            print(f"\n=== {r.lang}: {r.title} | names: {', '.join(r.characters)}")
            for i, p in enumerate(r.prose, 1):
                print(f"--- beat {i}\n{p}")


if __name__ == "__main__":
    main()
