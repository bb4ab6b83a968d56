"""The continuity report's checks on the generated serial (issue 42 item 3, "Measure it").

MEMORY FROM THE GENERATOR'S TRUTH, NOT FROM A MODEL: THIS MEASURES THE CHECKS ALONE. The inputs
the checks read (scenes with their paragraphs, the cast with aliases, the death, the counted
gold in two versions, the relations with the episode each began, the threads, and where 한서아
and 오민재 are at night in the geography plant's episode) are built here from
``bench/manuscript_gen.py``'s truth and its paragraph tags, the way a reading that got
everything right would leave the memory. How well a model reads the serial into memory is the
import bench's business; here a planted contradiction missed is the checks' fault.

Per subtype: found / planted (a finding of that subtype whose words at fault are the plant's
paragraph; an abandoned thread: its planted paragraph) in the dirty serial, and false alarms
(any finding) on the clean twin. Twice: the deterministic checks alone, and with a SCRIPTED
REVIEWER that answers from the truth, only for the subtypes the deterministic checks do not
cover (it is a stand-in that knows the answers: it measures the report's plumbing, quote
validation included, not a model).

    python bench/manuscript_report.py [--episodes 100] [--seed 42]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import manuscript_gen as gen  # bench/manuscript_gen.py

from aizac.continuity.serial_checks import (
    Death,
    Person,
    Quantity,
    RelationChange,
    SceneText,
    SerialInput,
    Sighting,
    ThreadFacts,
    deterministic_findings,
)
from aizac.continuity.serial_report import DETERMINISTIC, SerialFinding, Spot
from aizac.continuity.serial_review import ReviewFinding, SerialReview, accept_review
from aizac.dialogue.serial import speech_switches

NUMBERS = {"삼백": 300, "오백": 500}
"""The gold counts the quantity paragraphs write (read here as the truth's reading)."""


def _spot(item: dict[str, Any]) -> Spot:
    return Spot(int(item["episode"]), int(item["paragraph"]), str(item["quote"]))


def inputs(serial: gen.Serial, twin: str) -> SerialInput:
    """The checks' inputs for ``twin``, from the generator's truth (see the module doc)."""
    truth = serial.truth()
    scenes = []
    for ep in serial.episodes:
        first = 1
        for scene in ep.scenes:
            texts = tuple(getattr(p, twin) for p in scene)
            scenes.append(SceneText(ep.number, first, texts))
            first += len(texts)
    cast = tuple(Person(c["name"], tuple(c["aliases"])) for c in truth["cast"])
    deaths = tuple(Death(s["character"], _spot(s)) for s in truth["states"]
                   if s["state"] == "dead")
    source = next(r for r in truth["rules"] if r["kind"] == "quantity")
    e, p, dirty, clean = serial.where("plant:quantity")
    later = dirty if twin == "dirty" else clean
    quantities = (
        Quantity("gold:1", "왕실 금고의 금화", _count(source["quote"]), _spot(source)),
        Quantity("gold:2", "왕실 금고의 금화", _count(later), Spot(e, p, later), "gold:1"),
    )
    relations = tuple(RelationChange(r["a"], r["b"], r["relation"], int(r["since_episode"]))
                      for r in truth["relations"])
    threads = tuple(
        ThreadFacts(t["thread"], t["planted"]["quote"], _spot(t["planted"]),
                    tuple(_spot(s) for s in t["touched"]),
                    _spot(t["paid_off"]) if t["paid_off"] else None)
        for t in truth[twin]["threads"])
    e0, p0, q0, _ = serial.where("source:geography")
    e1, p1, d1, c1 = serial.where("plant:geography")
    seen = [Sighting("한서아", "북방 요새", "밤", Spot(e0, p0, q0))]
    if twin == "dirty":  # "같은 시각, 서아는 왕도 서문 시장의 국밥집에서 ..."
        seen.append(Sighting("한서아", "왕도", "밤", Spot(e1, p1, d1)))
    else:  # "같은 시각, 왕도 서문 시장의 국밥집에서는 민재가 홀로 ..."
        seen.append(Sighting("오민재", "왕도", "밤", Spot(e1, p1, c1)))
    return SerialInput("ko", tuple(scenes), cast, deaths, quantities, relations, threads,
                       tuple(seen))


def _count(text: str) -> float:
    return float(next(v for k, v in NUMBERS.items() if k in text))


def scripted_review(serial: gen.Serial, twin: str, episode: int) -> SerialReview:
    """SCRIPTED REVIEWER: the truth's plants of episode ``episode`` the deterministic checks
    do not cover (none on the clean twin: the truth has no contradiction there)."""
    if twin != "dirty":
        return SerialReview()
    found = [ReviewFinding(subtype=p.subtype, paragraph=p.paragraph, quote=p.quote[:200],
                           source_episode=p.source_episode,
                           source_paragraph=p.source_paragraph,
                           source_quote=p.source_quote[:200], note=p.subtype)
             for p in serial.plants()
             if p.episode == episode and p.subtype not in DETERMINISTIC]
    return SerialReview(findings=found)


def paragraphs(data: SerialInput) -> dict[int, dict[int, str]]:
    out: dict[int, dict[int, str]] = {}
    for spot in data.spots():
        out.setdefault(spot.episode, {})[spot.paragraph] = spot.quote
    return out


def run(serial: gen.Serial, twin: str, reviewer: bool) -> tuple[list[SerialFinding], int]:
    """Every finding on ``twin`` (and the scripted reviewer's quotes refused)."""
    data = inputs(serial, twin)
    found = [*deterministic_findings(data, len(serial.episodes)), *speech_switches(data)]
    refused = 0
    if reviewer:
        text = paragraphs(data)
        for ep in serial.episodes:
            got, bad = accept_review(scripted_review(serial, twin, ep.number), ep.number, text)
            found += got
            refused += bad
    return found, refused


def score(serial: gen.Serial, found: list[SerialFinding]) -> dict[str, bool]:
    """Each planted subtype: found at its paragraph."""
    out = {}
    for p in serial.plants():
        where = ((p.source_episode, p.source_paragraph) if p.subtype == "abandoned_thread"
                 else (p.episode, p.paragraph))
        out[p.subtype] = any(f.subtype == p.subtype and (f.at.episode, f.at.paragraph) == where
                             for f in found)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=42)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, episodes=12)
    serial = gen.generate(args.episodes, args.seed)
    print(f"{args.episodes} episodes, seed {args.seed}. MEMORY FROM THE GENERATOR'S TRUTH, NOT "
          "FROM A MODEL: measures the checks alone.")
    results = {}
    for reviewer in (False, True):
        start = time.perf_counter()
        dirty, refused = run(serial, "dirty", reviewer)
        clean, _ = run(serial, "clean", reviewer)
        took = time.perf_counter() - start
        results[reviewer] = (score(serial, dirty), Counter(f.subtype for f in clean),
                             Counter(f.subtype for f in dirty), refused, took)
    print("\n| subtype | category | decided by | found / planted: deterministic | "
          "with the SCRIPTED reviewer (answers from truth) | false alarms on the clean twin "
          "(deterministic / with reviewer) |\n|---|---|---|---|---|---|")
    for subtype, (category, _) in gen.SUBTYPES.items():
        det, rev = results[False], results[True]
        who = "check" if subtype in DETERMINISTIC else "reviewer"
        print(f"| {subtype} | {category} | {who} | {int(det[0][subtype])} / 1 "
              f"| {int(rev[0][subtype])} / 1 | {det[1][subtype]} / {rev[1][subtype]} |")
    for reviewer, (hits, alarms, all_dirty, refused, took) in results.items():
        label = "with the scripted reviewer" if reviewer else "deterministic alone"
        extra = sum(all_dirty.values()) - sum(hits.values())
        print(f"\n{label}: {sum(hits.values())} / {len(hits)} planted found at their paragraph, "
              f"{sum(alarms.values())} false alarms on the clean twin "
              f"({dict(alarms) or '-'}), {extra} other findings on the dirty serial, "
              f"{refused} reviewer quotes refused, {took:.2f} s for both twins")


if __name__ == "__main__":
    main()
