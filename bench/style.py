"""Style learned from edits: the profile follows a planted editing habit, stays put for the same
text, and reaches the prose prompt within its budget.

1. **Habit** (no model): a scripted model drafts Korean prose in long sentences of chained
   clauses ending in 했다; a planted writer edits each draft with a habit applied to 70% of its
   sentences — ``split`` (every long sentence cut into its clauses), ``eo`` (했다 -> 했어), or
   both. The project starts with five passages of the writer's older text (written like the
   model), so the profile has somewhere to move from. After each edit the profile is computed
   again; the table shows it moving toward the habit (the metrics of text edited with the
   habit, as the writer applies it, over 40 drafts) and the first edit at which its gap to the
   habit is within 10 points (the drift scale: mean gap per metric, in percent), and how far
   the model's unchanged drafts drift from the profile as it moves.
2. **Stability**: the same passages in 200 shuffled orders give one profile.
3. **Prompt**: a project with the writer's edits and voice facts; the prose prompt of a
   two-speaker and a three-speaker beat is built as the writer agent builds it, with and
   without the style and dialogue notes, at the default notes budget (900) and the small
   model's (250): what the additions cost in tokens per beat, and that the notes plus the
   context pack stay within the budget. The dialogue plan step of a 3+ speaker beat is one
   more planner call; its prompt is measured too.
4. ``--real``: the same habit with the writer role of your configured models
   (``aizac models``; ``AIZAC_WRITER_MODEL``): it drafts, the habit edits, then it drafts again
   with and without the style notes, and the drift of each draft from the profile is compared.
   Nothing here can measure that: no installable offline model writes Korean (the embedded
   SmolLM2 writes English only), so it only runs when you configure one.

    python bench/style.py                    # parts 1-3
    python bench/style.py --edits 12 --habit both
    python bench/style.py --real --real-beats 3   # with your configured writer model
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aizac.dialogue.canon import read_voices
from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.memory import note_card, note_pair
from aizac.dialogue.plan import DialoguePlan, PlanTurn
from aizac.dialogue.prompt import voice_lines
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.style import Passage, StyleBook, WriterStyle, build_profile, count, drift
from aizac.tokens import count_tokens
from aizac.writer.context import scene_brief
from aizac.writer.output import ProseWriter
from aizac.writer.project import ProjectStore
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import DialogueLine, NovelBeat

# Clauses: (chained form, final form). A model sentence chains three; the writer's split
# habit makes each its own sentence; the eo habit turns the final 했다 into 했어.
CLAUSES = [
    ("민호는 문을 열고", "민호는 문을 열었다"),
    ("차가운 바람이 복도로 밀려들었으며", "차가운 바람이 복도로 밀려들었다"),
    ("수아는 창가에 서서", "수아는 창가에 서 있었다"),
    ("그는 주머니 속 편지를 만지작거리고", "그는 주머니 속 편지를 만지작거렸다"),
    ("계단 아래에서 발소리가 울렸으며", "계단 아래에서 발소리가 울렸다"),
    ("그녀는 대답 대신 고개를 돌리고", "그녀는 대답 대신 고개를 돌렸다"),
    ("불 꺼진 교실은 조용했고", "불 꺼진 교실은 조용했다"),
    ("민호는 숨을 고르며", "민호는 숨을 골랐다"),
    ("멀리서 종이 울리고", "멀리서 종이 울렸다"),
    ("수아의 손끝이 떨렸으며", "수아의 손끝이 떨렸다"),
    ("그는 한 걸음 물러서고", "그는 한 걸음 물러섰다"),
    ("창밖의 비가 거세졌으며", "창밖의 비가 거세졌다"),
]
LINES = ["“선배, 어디 가세요?”", "“왜 이제 왔어.”", "“그건 제가 할게요.”", "“늦었잖아.”"]
HABIT_SHARE = 0.7


def _eo(sentence: str) -> str:
    """했다 -> 했어 at the end of a sentence: any past form (a syllable with the final ㅆ
    before 다: 열었다, 골랐다, 돌렸다, 섰다) becomes -어."""
    found = re.search(r"(.)다([.!?…]*)$", sentence)
    if found is None or (ord(found[1]) - 0xAC00) % 28 != 20 or not "가" <= found[1] <= "힣":
        return sentence
    return sentence[: found.start()] + found[1] + "어" + found[2]


def draft(rng: random.Random, sentences: int = 5) -> list[list[tuple[str, str]]]:
    """A model draft as sentences of clauses."""
    return [rng.sample(CLAUSES, 3) for _ in range(sentences)]


def render(doc: list[list[tuple[str, str]]], rng: random.Random, habit: str,
           share: float) -> str:
    """The draft as text; with a habit, ``share`` of its sentences are edited by it."""
    lines = []
    for n, clauses in enumerate(doc):
        edit = habit != "none" and rng.random() < share
        if edit and habit in ("split", "both"):
            parts = [final + "." for _, final in clauses]
        else:
            parts = [" ".join([c for c, _ in clauses[:-1]] + [clauses[-1][1]]) + "."]
        if edit and habit in ("eo", "both"):
            parts = [_eo(p) for p in parts]
        lines.append(" ".join(parts))
        if n % 2 == 1:
            lines.append(LINES[n % len(LINES)])
    return "\n".join(lines)


def habit_part(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    older = [Passage(f"old/{i}", "prose", "ko", "", render(draft(rng), rng, "none", 0))
             for i in range(5)]
    # the habit as the writer applies it (to 70% of the sentences), over many drafts
    target = count("\n".join(render(draft(rng), rng, args.habit, HABIT_SHARE)
                             for _ in range(40)), "ko").metrics("ko")
    drafts: list[str] = []
    passages = list(older)
    print(f"1. habit '{args.habit}' on {HABIT_SHARE:.0%} of each draft's sentences "
          "(5 older passages of the writer's own, written like the model)")
    print(f"{'edits':>5} {'sent.len':>8} {'long%':>6} {'-어%':>5} {'-다%':>5} "
          f"{'gap to habit':>12} {'drafts drift':>12}  top deleted / added")
    hit = None
    for n in range(args.edits + 1):
        if n:
            doc = draft(rng)
            model = render(doc, random.Random(n), "none", 0)
            writer = render(doc, random.Random(1000 + n), args.habit, HABIT_SHARE)
            drafts.append(model)
            passages.append(Passage(f"edit/{n:03d}", "prose", "ko", model, writer))
        profile = build_profile(passages, "ko")
        m = profile.metrics
        habit_gap = _gap(profile, target)
        if hit is None and habit_gap <= 10.0:
            hit = n
        model_drift = f"{drift(profile, drafts, 1).score:12.1f}" if drafts else f"{'-':>12}"
        words = ", ".join(w for w, _ in profile.deleted[:2]) + " / " + ", ".join(
            w for w, _ in profile.added[:2])
        print(f"{n:5d} {m.sentence_len:8.1f} {100 * m.long_share:6.0f} "
              f"{100 * m.endings.get('eo', 0):5.0f} {100 * m.endings.get('da', 0):5.0f} "
              f"{habit_gap:12.1f} {model_drift}  {words}")
    print(f"habit target: sentence length {target.sentence_len:.1f}, long "
          f"{100 * target.long_share:.0f}%, -어 {100 * target.endings.get('eo', 0):.0f}%")
    print(f"the profile is within 10 points of the habit after "
          f"{hit if hit is not None else '>' + str(args.edits)} edit(s)")


def _gap(profile: Any, target: Any) -> float:
    """The drift score between a profile and the habit's metrics (same scale as drift)."""
    from aizac.style.drift import _gap as gap
    from aizac.style.drift import metric_rows

    mine, theirs = metric_rows(profile.metrics), metric_rows(target)
    rows = [gap(v, theirs[k][0], kind) for k, (v, kind) in mine.items() if k in theirs]
    return 100.0 * sum(rows) / len(rows)


def stability_part(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    passages = [Passage(f"p/{i:03d}", "prose", "ko", render(d, rng, "none", 0),
                        render(d, rng, "both", 0.6)) for i, d in
                enumerate(draft(rng) for _ in range(30))]
    first = build_profile(passages, "ko").to_dict()
    same = 0
    started = time.perf_counter()
    for _ in range(args.orders):
        rng.shuffle(passages)
        same += build_profile(passages, "ko").to_dict() == first
    ms = 1000 * (time.perf_counter() - started) / max(args.orders, 1)
    print(f"\n2. stability: {same}/{args.orders} shuffled orders of 30 passages gave the same "
          f"profile ({ms:.1f} ms per profile of 30 passages)")


class _NoModel:
    """A router without models: the prompt is built, never sent."""

    def model(self, role: str) -> Any:
        raise KeyError(role)


def prompt_part(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    root = Path(tempfile.mkdtemp(prefix="aizac-style-bench-"))
    settings = Settings(data_dir=root / "data", memory_threshold=1.0)
    store = ProjectStore.create(root / "data" / "projects", "bench", language="ko",
                                genre="현대 판타지", keywords=["회귀"])
    memory = WriterMemory(store.memory_dir, embeddings=HashingEmbeddings(), settings=settings)
    with memory.stage() as b:
        for name in ("강민호", "윤수아", "박지훈", "진양철"):
            b.remember(f"{name} — 등장인물", "Character", character_name=name)
        for s, listener, level, address in [("강민호", "윤수아", "polite", "선배"),
                                            ("윤수아", "강민호", "plain", "민호야"),
                                            ("박지훈", "윤수아", "plain", "수아야"),
                                            ("강민호", "박지훈", "plain", "형")]:
            note_pair(b, PairVoice(s, listener, level, address), "ko")
        note_card(b, VoiceCard("박지훈", "무뚝뚝함", catchphrases=("귀찮게 하네",)), "ko")
    book = StyleBook(store.directory, "bench", writer_dir=settings.data_dir)
    for n in range(1, args.edits + 1):
        doc = draft(rng)
        book.record_model(n, "prose", render(doc, rng, "none", 0), episode=1, index=n,
                          language="ko")
        book.record_writer(n, "prose", render(doc, rng, "both", HABIT_SHARE), episode=1,
                           index=n, language="ko")
    style = WriterStyle(book, "ko", HashingEmbeddings())
    pair = NovelBeat(episode=2, index=1, location="학교 옥상", time="밤",
                     characters=["강민호", "윤수아"], events=["민호가 수아를 붙잡는다"],
                     dialogue=[DialogueLine(speaker="강민호", line="선배, 잠깐만요.")])
    trio = pair.model_copy(update={
        "characters": ["강민호", "윤수아", "박지훈"],
        "dialogue": [DialogueLine(speaker="강민호", line="선배, 잠깐만요."),
                     DialogueLine(speaker="윤수아", line="왜?"),
                     DialogueLine(speaker="박지훈", line="귀찮게 하네.")]})
    print("\n3. the prose prompt (tokens, estimated as the budgets count them)")
    print(f"{'budget':>6} {'beat':10} {'plain':>6} {'+style':>7} {'+voices':>8} {'total':>6} "
          f"{'notes<=budget':>13}  in the prompt")
    for budget in (900, 250):
        for label, beat in (("2 speakers", pair), ("3 speakers", trio)):
            plain = ProseWriter(store, memory, _NoModel(), prose_context_tokens=budget)  # type: ignore[arg-type]
            with_style = ProseWriter(store, memory, _NoModel(), prose_context_tokens=budget,  # type: ignore[arg-type]
                                     style=style)
            # the plan of a 3+ speaker beat comes from the planner; here a fixed one
            plan = DialoguePlan(turns=[PlanTurn(speaker="강민호", to="윤수아", wants="붙잡기",
                                                gist="잠깐 기다려 달라"),
                                       PlanTurn(speaker="박지훈", to="강민호", wants="귀가",
                                                gist="투덜댄다")])
            for writer in (plain, with_style):
                writer._plans[beat.model_dump_json()] = plan
            base, _ = _no_voices(plain, beat)
            full, _ = with_style.prose_messages(beat, "")
            notes = with_style.last_notes
            text = "\n".join(str(m.content) for m in full)
            t_base = sum(count_tokens(str(m.content)) for m in base)
            t_full = sum(count_tokens(str(m.content)) for m in full)
            shown = [w for w, k in (("profile", "## 작가의 문체"), ("passages", "## 작가가 직접"),
                                    ("voices", "## 말하는 인물"), ("plan", "## 대화 계획"))
                     if k in text]
            ok = notes.style + notes.dialogue + notes.context <= budget
            print(f"{budget:6d} {label:10} {t_base:6d} {notes.style:7d} {notes.dialogue:8d} "
                  f"{t_full:6d} {ok!s:>13}  {', '.join(shown)}")
    voices = voice_lines(read_voices(memory, trio.characters), trio.characters, "ko",
                         trio.characters)
    plan_prompt = PromptLibrary().render("dialogue_plan", "ko", scene=scene_brief(trio),
                                         speakers="강민호, 윤수아, 박지훈",
                                         voices="\n".join(voices), turns=4)
    plan_tokens = sum(count_tokens(str(m.content)) for m in plan_prompt)
    print(f"the dialogue plan step of a 3+ speaker beat: one planner call, prompt "
          f"{plan_tokens} tokens + the DialoguePlan schema")
    memory.close()


def _no_voices(writer: ProseWriter, beat: NovelBeat) -> tuple[list[Any], str]:
    """The prompt as it was before voices: no voice is read and no dialogue is planned (the
    writer asks ``aizac.dialogue`` for both when it builds the prompt)."""
    import aizac.dialogue as dialogue
    from aizac.dialogue.canon import VoiceCanon

    read, plans = dialogue.read_voices, dialogue.needs_plan
    dialogue.read_voices = lambda *_a, **_k: VoiceCanon()
    dialogue.needs_plan = lambda *_a, **_k: False
    try:
        return writer.prose_messages(beat, "")
    finally:
        dialogue.read_voices, dialogue.needs_plan = read, plans


def real_part(args: argparse.Namespace) -> None:
    from aizac.llm.router import ModelRouter
    from aizac.settings import get_settings

    settings = get_settings()
    spec = settings.role_model("writer") if hasattr(settings, "role_model") else (
        settings.writer_model)
    print(f"\n4. real model: writer role = {spec}")
    if spec == "local" and not args.force:
        print("   not measured: the embedded SmolLM2 writes no Korean; configure a writer "
              "model (aizac models set writer SPEC) or pass --force to try the local one")
        return
    router = ModelRouter(settings)
    from langchain_core.messages import HumanMessage, SystemMessage

    system = SystemMessage("당신은 웹소설 작가입니다. 한국어로 장면을 씁니다.")
    passages: list[Passage] = []
    drafts = []
    for n in range(args.real_beats):
        ask = HumanMessage(f"다음 장면을 소설 본문으로 5문장 정도 쓰세요: {CLAUSES[n][1]}.")
        text = "".join(router.stream("writer", [system, ask]))
        edited = "\n".join(_eo(s.strip()) for s in re.split(r"(?<=[.!?])\s+", text) if s.strip())
        passages.append(Passage(f"r/{n}", "prose", "ko", text, edited))
        drafts.append(text)
    profile = build_profile(passages, "ko")
    from aizac.style.prompt import style_block
    notes = style_block(profile, passages[:2], "ko", 225).text
    with_notes, without = [], []
    for n in range(args.real_beats):
        ask = f"다음 장면을 소설 본문으로 5문장 정도 쓰세요: {CLAUSES[-1 - n][1]}."
        without.append("".join(router.stream("writer", [system, HumanMessage(ask)])))
        with_notes.append("".join(router.stream("writer", [system, HumanMessage(
            notes + "\n\n" + ask)])))
    print(f"   drift of new drafts from the profile: without notes "
          f"{drift(profile, without, 1).score:.1f}, with notes "
          f"{drift(profile, with_notes, 1).score:.1f} (lower: closer to the writer)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--habit", choices=["split", "eo", "both"], default="both")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--orders", type=int, default=200, help="shuffled orders of part 2")
    ap.add_argument("--real", action="store_true", help="also run part 4 with your writer model")
    ap.add_argument("--real-beats", type=int, default=3)
    ap.add_argument("--force", action="store_true", help="part 4 even on the embedded model")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, argv, edits=2, orders=3)
    habit_part(args)
    stability_part(args)
    prompt_part(args)
    if args.real:
        real_part(args)


if __name__ == "__main__":
    main()
