"""``bench/manuscript_gen.py`` (issue 42): the generated serial is the same for the same seed, the
dirty serial holds a planted contradiction of every subtype where its truth says, and the clean
twin holds none of them. ``tests/test_benches.py`` runs both manuscript scripts at their smoke
size; this checks what their figures rest on."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from aizac.manuscript import formats, splitting

BENCH = Path(__file__).resolve().parents[1] / "bench" / "manuscript_gen.py"
TAXONOMY = {
    # ConStory-Bench (issue 42): characterization, factual detail, narrative style,
    # timeline and plot, world-building; and the two the memory decides on its own
    "memory_contradiction", "knowledge_conflict", "skill_power_fluctuation", "forgotten_ability",
    "appearance", "nomenclature", "quantity",
    "perspective", "tone", "style_break",
    "time_contradiction", "duration", "causality", "abandoned_thread",
    "rule_violation", "social_norm", "geography",
    "speech_level", "dead_character",
}  # fmt: skip
EPISODES = 12


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("aizac_bench_manuscript_gen", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def written(gen: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("serial")
    gen.write_all(gen.generate(EPISODES, seed=5), out)
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_serial(
        gen: ModuleType, written: Path, tmp_path: Path) -> None:
    gen.write_all(gen.generate(EPISODES, seed=5), tmp_path / "again")
    first, again = _files(written), _files(tmp_path / "again")
    assert len(first) == 2 + 2 * (4 + EPISODES)  # truth, layout, both twins' files
    assert first == again
    other = gen.generate(EPISODES, seed=6)
    assert other.truth()["dirty"]["episodes"] != json.loads(
        first["truth.json"])["dirty"]["episodes"]


def _episodes(path: Path) -> list[list[str]]:
    """The paragraphs of each episode as aizac splits the file."""
    split = splitting.split([formats.read_file(p) for p in formats.expand([path])])
    return [e.paragraphs for e in split.episodes()]


def test_the_dirty_serial_holds_every_subtype_where_the_truth_says(
        gen: ModuleType, written: Path) -> None:
    truth = json.loads((written / "truth.json").read_text("utf-8"))
    planted = truth["dirty"]["contradictions"]
    assert {p["subtype"] for p in planted} == TAXONOMY and len(planted) == len(TAXONOMY)
    episodes = _episodes(written / "dirty" / "serial_utf8.txt")
    assert len(episodes) == EPISODES
    for plant in planted:
        assert episodes[plant["episode"] - 1][plant["paragraph"] - 1] == plant["quote"], plant
        source = episodes[plant["source_episode"] - 1][plant["source_paragraph"] - 1]
        assert source == plant["source_quote"], plant
        assert plant["quote"] != plant["clean_quote"]


def test_the_clean_twin_holds_none_of_them(gen: ModuleType, written: Path) -> None:
    truth = json.loads((written / "truth.json").read_text("utf-8"))
    assert truth["clean"]["contradictions"] == []
    clean = _episodes(written / "clean" / "serial_utf8.txt")
    text = "\n".join(p for e in clean for p in e)
    for plant in truth["dirty"]["contradictions"]:
        assert plant["quote"] not in text, plant["subtype"]
        assert clean[plant["episode"] - 1][plant["paragraph"] - 1] == plant["clean_quote"]
    # the same serial otherwise: as many paragraphs in every episode, and the same ones
    dirty = _episodes(written / "dirty" / "serial_utf8.txt")
    assert [len(e) for e in dirty] == [len(e) for e in clean]
    differ = sum(a != b for x, y in zip(dirty, clean, strict=True)
                 for a, b in zip(x, y, strict=True))
    assert differ == len(TAXONOMY) + 1  # the abandoned thread: its touch and its payoff


_SAYS = re.compile(r"^(.+?)[이가] (.+?)에게 말했다\. “([^”]*)”")
_POLITE = re.compile(r"(니다|니까|십시오|세요|에요|예요|요)[.?!]?$")


def _speech(paragraph: str) -> tuple[str, str, str] | None:
    said = _SAYS.match(paragraph)
    if said is None:
        return None
    level = "존댓말" if _POLITE.search(said.group(3).strip()) else "반말"
    return said.group(1), said.group(2), level


def test_speech_levels_and_the_dead_follow_the_truth_except_where_planted(
        gen: ModuleType, written: Path) -> None:
    """Checked from the text itself, not from the generator's bookkeeping: every line of
    dialogue is said at the level the pair's relation (at that episode) gives, and no one acts
    after their death, in the clean twin; in the dirty one only the planted paragraphs break
    either."""
    truth = json.loads((written / "truth.json").read_text("utf-8"))
    short = {c["aliases"][0]: c["name"] for c in truth["cast"]}
    short["태석"] = "최태석"
    died = next(s for s in truth["states"] if s["state"] == "dead")
    dead = died["character"]
    plants = {p["subtype"]: p for p in truth["dirty"]["contradictions"]}

    def breaks(twin: str) -> dict[str, list[tuple[int, int]]]:
        found: dict[str, list[tuple[int, int]]] = {"speech_level": [], "dead_character": []}
        for number, paragraphs in enumerate(_episodes(written / twin / "serial_utf8.txt"), 1):
            for index, paragraph in enumerate(paragraphs, 1):
                spoken = _speech(paragraph)
                if spoken is not None:
                    a, b, level = short[spoken[0]], short[spoken[1]], spoken[2]
                    rel = [r for r in truth["relations"] if {r["a"], r["b"]} == {a, b}
                           and r["since_episode"] <= number]
                    if rel[-1]["speech"][f"{a}->{b}"] != level:
                        found["speech_level"].append((number, index))
                after = (number, index) > (died["episode"], died["paragraph"])
                acting = re.search(rf"(?:^|[.”] ){dead[1:]}[이가은는] |{dead}[이가은는] "
                                   r"[^.]*(들어왔다|앉았다|말했다)", paragraph)
                if after and acting:
                    found["dead_character"].append((number, index))
        return found

    assert breaks("clean") == {"speech_level": [], "dead_character": []}
    assert breaks("dirty") == {
        kind: [(plants[kind]["episode"], plants[kind]["paragraph"])]
        for kind in ("speech_level", "dead_character")}
