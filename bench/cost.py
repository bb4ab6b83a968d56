"""Cost per episode: calls and prompt tokens a serial sends to a paid API.

A loopback OpenAI-compatible server (127.0.0.1, the real chat-completions wire format, SSE
for streamed prose) answers every role (planner, writer, extractor, reviewer: each role is a
model name, so the server knows who asks) and logs every request. A Korean project runs
``--episodes`` episodes through :class:`~aizac.writer.service.Studio` as the CLI and the web app
drive it (plan, then per beat: design, accept, write prose) with real memory, retrieval, the
cliché database and SQLite. The "model" writes as much prose as the prose prompt asks for
(the number before 자 / words / 字), so prompt cost per 1,000 characters of prose compares
versions that ask for different lengths.

Prompt tokens are the :mod:`aizac.tokens` estimate of the messages sent; "+schema" adds the JSON
schema sent with a structured call (providers bill it as prompt tokens).

``before`` is the code of ``--before-rev`` (default: the revision this work started from),
exported with ``git archive`` to a temporary directory and run in a child process with the
same server and the same scripted model; ``after`` is the working tree. One run prints both
side by side:

    python bench/cost.py                      # 20 episodes, before and after
    python bench/cost.py --episodes 5 --only after
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEFORE_REV = "8e9f3ce"
ROLES = ("planner", "writer", "extractor", "reviewer")
CAST = ["강준", "서유나", "백호", "민세리", "차도윤"]
EXTRAS = ["한석", "윤재희", "오만복", "남궁태", "진소하",
          "류건", "하다인", "표철", "마은서", "구태양"]
SENTENCES = [
    "비가 그친 골목에 젖은 간판 불빛이 번졌다.",
    "그는 숨을 고르며 주머니 속 낡은 열쇠를 만지작거렸다.",
    '"이번에는 도망치지 않을 거야." 그녀가 낮게 말했다.',
    "멀리서 종소리가 울리자 사람들의 시선이 한곳으로 모였다.",
    "오래된 약속이 머릿속을 스쳤고, 손끝이 조금 떨렸다.",
    "문틈으로 새어 나온 빛 아래, 누군가의 그림자가 길게 늘어졌다.",
    '"네가 본 게 전부는 아니야." 그가 웃으며 고개를 저었다.',
    "차가운 바람이 불어와 외투 자락을 거칠게 흔들었다.",
]


# ------------------------------------------------------------------------------ the model
def _schema_name(body: dict[str, Any]) -> str | None:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return str(fmt["json_schema"].get("name"))
    return None


def _schema_text(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema = fmt["json_schema"].get("schema", {})
        return json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    return ""


@dataclass
class Call:
    """One logged request."""

    role: str
    node: str
    episode: int
    index: int
    prompt: str
    schema: str


@dataclass
class Script:
    """The scripted model: deterministic Korean replies; position set by the driver."""

    episode: int = 0
    index: int = 0
    designed: int = 0
    paragraphs: int = 0
    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def node(self, body: dict[str, Any]) -> str:
        name = _schema_name(body)
        if name is None:
            return "prose"
        if name.startswith("BeatDesign"):
            return "beat"
        return {
            "NovelPlot": "plot",
            "BeatDesign": "beat",
            "CharacterProfile": "character",
            "BeatSummary": "summary",
            "StoryExtraction": "extract_Story",
            "CharacterExtraction": "extract_Character",
            "RelationExtraction": "extract_CharacterRelation",
            "SettingExtraction": "extract_NovelSetting",
        }.get(name, "extract_combined" if "xtract" in name else name)

    def answer(self, body: dict[str, Any]) -> str:
        from acceptance.openai_server import prompt_text

        node = self.node(body)
        prompt = prompt_text(body)
        with self.lock:
            self.calls.append(Call(str(body.get("model")), node, self.episode, self.index,
                                   prompt, _schema_text(body)))
            if node == "beat":
                self.designed += 1
            return self._reply(node, prompt, _schema_name(body) or "")

    def _cast(self) -> tuple[str, str, list[str]]:
        # Each episode follows one pair (beats of an episode keep their cast); a new character
        # in the first beat of every second episode (as measured in real runs).
        ep = self.episode
        a, b = CAST[ep % len(CAST)], CAST[(ep + 2) % len(CAST)]
        extra = self.episode // 2 - 1
        people = [a, b]
        if self.index == 1 and self.episode % 2 == 0 and 0 <= extra < len(EXTRAS):
            people.append(EXTRAS[extra])
        return a, b, people

    def _reply(self, node: str, prompt: str, schema: str) -> str:
        a, b, people = self._cast()
        n, ep = self.designed, self.episode
        facts: dict[str, Any] = {
            "story": [{"text": f"{ep}화: {a}이(가) {b}에게서 단서 {n}을(를) 얻었다.",
                       "keyword": f"단서{n}", "foreshadow": n % 5 == 0}],
            "characters": [{"character_name": a, "text": f"{a}은(는) 결심 {n}을(를) 굳혔다.",
                            "keyword": "결심"}],
            "relations": [{"character1": a, "character2": b,
                           "text": f"{a}와(과) {b}는 {n}번째 약속으로 묶였다.", "keyword": "약속"}],
            "settings": [{"keyword": f"장소{n % 9}",
                          "text": f"북문 시장의 규칙 {n}: 밤에는 문을 닫는다."}],
            "summary": f"{ep}화: {a}와(과) {b}가 단서 {n}을(를) 두고 맞섰다.",
        }
        if node == "plot":
            stages = ("exposition", "development", "crisis", "climax", "resolution")
            return json.dumps({
                "title": "북문의 열쇠", "logline": "회귀한 열쇠공이 도시의 문을 다시 연다.",
                "genre": "현대 판타지", "keywords": ["회귀", "복수"],
                "characters": [{"name": c, "role": "주연", "profile": f"{c}: 비밀을 가진 인물."}
                               for c in CAST],
                "settings": [{"name": "북문", "description": "밤마다 다른 곳으로 열리는 문."}],
                "acts": [{"stage": s, "goal": f"{i + 1}막의 목표: 문의 비밀에 다가간다.",
                          "episodes": 10, "key_events": [f"{i + 1}막 사건 {k}" for k in (1, 2)]}
                         for i, s in enumerate(stages)],
            }, ensure_ascii=False)
        if node == "beat":
            cast = [{"name": p, "aliases": [], "role": "조연",
                     "profile": "시장 뒷골목을 아는 사람.", "goal": "살아남기."}
                    for p in people if p not in CAST]
            return json.dumps({
                **({"new_characters": cast} if schema == "BeatDesignWithCast" else {}),
                "location": f"북문 시장 {n % 7}번 골목", "time": f"{ep}화 밤", "characters": people,
                "events": [f"{a}이(가) {b}와(과) 시험 {n}을(를) 마주한다."],
                "dialogue": [{"speaker": a, "line": f"이번이 {n}번째야."}], "emotions": ["긴장"],
                "conflicts": [f"갈등 {n}"], "sets_up": [f"복선 {n}"], "pays_off": [],
            }, ensure_ascii=False)
        if node == "character":
            found = re.search(r"(?:등장합니다|appears):\s*(.+)", prompt)
            name = found.group(1).strip() if found else "무명"
            return json.dumps({"name": name, "aliases": [], "role": "조연",
                               "profile": "시장 뒷골목을 아는 사람.", "goal": "살아남기."},
                              ensure_ascii=False)
        keyed = {"extract_Story": "story", "extract_Character": "characters",
                 "extract_CharacterRelation": "relations", "extract_NovelSetting": "settings"}
        if node in keyed:
            return json.dumps({"facts": facts[keyed[node]]}, ensure_ascii=False)
        if node == "summary":
            return json.dumps({"summary": facts["summary"]}, ensure_ascii=False)
        if node == "extract_combined":
            nested = {k: {"facts": facts[k]} for k in ("story", "characters", "relations",
                                                        "settings")}
            return json.dumps({**nested, "summary": facts["summary"]}, ensure_ascii=False)
        return self._prose(prompt)

    def _prose(self, prompt: str) -> str:
        asked = re.findall(r"(\d[\d,]*)\s*(?:자|字|words)", prompt)
        target = int(asked[-1].replace(",", "")) if asked else 300
        out: list[str] = []
        size = 0
        while size < target:
            self.paragraphs += 1
            k = self.paragraphs
            lines = (SENTENCES[(k + i) % len(SENTENCES)] for i in range(3))
            para = f"{k}번째 문단. " + " ".join(lines)
            para = para[: max(20, target - size)]
            out.append(para)
            size += len(para) + 2
        return "\n\n".join(out)


# ------------------------------------------------------------------------------ one run
def _one_loop_for_old_code() -> None:
    """Revisions before 7423dd2 ran each accept's extraction in a new event loop, so an async
    HTTP client failed on the second beat ("Event loop is closed"). Give such a revision one
    persistent loop; no prompt or call changes."""
    try:
        import aizac.llm.runtime  # noqa: F401  (the fix is there)
        return
    except ImportError:
        pass
    import asyncio

    from aizac.writer import extraction

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    extraction.run_sync = lambda coro: asyncio.run_coroutine_threadsafe(coro, loop).result()


def run(episodes: int, data_dir: Path) -> dict[str, Any]:
    """Run ``episodes`` episodes with the ``aizac`` importable now; figures as JSON-able dict."""
    _one_loop_for_old_code()
    sys.path.insert(0, str(ROOT / "tests"))
    from acceptance.openai_server import OpenAIServer

    from aizac.cliches import ClicheDB
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.tokens import count_tokens
    from aizac.writer.context import default_context
    from aizac.writer.service import Studio

    script = Script()
    contexts: list[tuple[int, int, int]] = []
    built: list[str] = []

    def context_builder(memory: Any, **kw: Any) -> str:
        text = str(default_context(memory, **kw))
        contexts.append((script.episode, script.index, count_tokens(text)))
        built.append(text)
        return text

    with OpenAIServer(script.answer, chunk_chars=64) as server:
        specs = {f"{r}_model": f"openai-compatible:{server.base_url}:{r}" for r in ROLES}
        settings = Settings(data_dir=data_dir, language="ko", embedding="hash",
                            openai_compatible_api_key="bench", transient_retries=0, **specs)
        studio = Studio(settings, cliches=ClicheDB(embeddings=HashingEmbeddings()),
                        context_builder=context_builder)
        agent = studio.create("cost", "회귀, 복수, 열쇠", genre="현대 판타지", language="ko")
        agent.plan()
        prose: dict[int, int] = defaultdict(int)
        beats: dict[int, int] = defaultdict(int)
        while True:
            episode, index = agent.next_position()
            if episode > episodes:
                break
            script.episode, script.index = episode, index
            draft = agent.next_beat()
            agent.accept(draft.id)
            "".join(agent.write_prose(draft.id))
            prose[episode] += len(agent.store.beat(draft.id).prose)
            beats[episode] += 1
    # A prompt holds a pack when it holds the pack's item lines (headings are translated into
    # the prompt's language on the way, so the whole text is not a substring).
    packs = {text: {ln for ln in text.splitlines() if ln.startswith("- ")} for text in built}

    def context_sent(prompt: str) -> int:
        lines = set(prompt.splitlines())
        held = [count_tokens(t) for t, items in packs.items() if items and items <= lines]
        return max(held, default=0)

    calls = [
        {"role": c.role, "node": c.node, "episode": c.episode, "index": c.index,
         "prompt": count_tokens(c.prompt), "schema": count_tokens(c.schema),
         "context": context_sent(c.prompt)}
        for c in script.calls
    ]
    return {"calls": calls, "prose": dict(prose), "beats": dict(beats),
            "contexts": contexts}


# ------------------------------------------------------------------------------ reporting
def summarise(result: dict[str, Any], marks: list[int]) -> dict[str, Any]:
    calls, prose = result["calls"], {int(k): v for k, v in result["prose"].items()}
    beats = {int(k): v for k, v in result["beats"].items()}
    out: dict[str, Any] = {}
    for ep in marks:
        mine = [c for c in calls if c["episode"] == ep]
        chars = max(prose.get(ep, 0), 1)
        prompt = sum(c["prompt"] for c in mine)
        schema = sum(c["schema"] for c in mine)
        out[ep] = {
            "beats": beats.get(ep, 0), "calls": len(mine),
            "calls/beat": len(mine) / max(beats.get(ep, 1), 1),
            "prose chars": prose.get(ep, 0), "prompt tok": prompt, "+schema tok": prompt + schema,
            "tok/1k chars": 1000 * prompt / chars,
            "tok/1k +schema": 1000 * (prompt + schema) / chars,
        }
    sent: dict[tuple[int, int], int] = defaultdict(int)
    for c in calls:
        sent[(c["episode"], c["index"])] += c["context"]
    packs: dict[tuple[int, int], int] = defaultdict(int)
    for ep, idx, _ in result["contexts"]:
        packs[(ep, idx)] += 1
    for ep in (6, 20):
        values = [t for (e, _), t in sent.items() if e == ep]
        out[f"context/beat ep{ep}"] = sum(values) / len(values) if values else 0.0
        built = [n for (e, _), n in packs.items() if e == ep]
        out[f"packs/beat ep{ep}"] = sum(built) / len(built) if built else 0.0
    return out


def by_node(result: dict[str, Any], marks: list[int]) -> dict[tuple[str, str], dict[int, tuple]]:
    table: dict[tuple[str, str], dict[int, tuple]] = defaultdict(dict)
    for ep in marks:
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for c in result["calls"]:
            if c["episode"] == ep:
                groups[(c["role"], c["node"])].append(c)
        for key, group in groups.items():
            table[key][ep] = (len(group), sum(c["prompt"] for c in group),
                              sum(c["schema"] for c in group))
    return table


def report(results: dict[str, dict[str, Any]], episodes: int) -> None:
    marks = sorted({1, min(10, episodes), episodes})
    sums = {mode: summarise(r, marks) for mode, r in results.items()}
    modes = list(results)
    print(f"\ncost per episode, Korean project, {episodes} episodes, every role on a loopback "
          "OpenAI-compatible server (prompt tokens: aizac.tokens estimate)\n")
    rows = ["beats", "calls", "calls/beat", "prose chars", "prompt tok", "+schema tok",
            "tok/1k chars", "tok/1k +schema"]
    head = f"{'':<16}" + "".join(f"{f'{m} ep{e}':>17}" for m in modes for e in marks)
    print(head)
    for row in rows:
        cells = []
        for m in modes:
            for e in marks:
                v = sums[m][e][row]
                cells.append(f"{v:>17.1f}" if isinstance(v, float) else f"{v:>17}")
        print(f"{row:<16}" + "".join(cells))
    print()
    for m in modes:
        c6, c20 = sums[m]["context/beat ep6"], sums[m]["context/beat ep20"]
        ratio = c20 / c6 if c6 else float("nan")
        print(f"{m:<10} context tokens sent per beat: ep6 {c6:.0f}, ep20 {c20:.0f}, "
              f"ep20/ep6 {ratio:.2f} (goal <= 1.2); context packs built per beat: "
              f"ep6 {sums[m]['packs/beat ep6']:.2f}, ep20 {sums[m]['packs/beat ep20']:.2f}")
    a = modes[0]
    for b in modes[1:]:
        print()
        for row in ("calls/beat", "tok/1k chars", "tok/1k +schema"):
            ratios = [sums[a][e][row] / max(sums[b][e][row], 1e-9) for e in marks]
            cells = "".join(f"  ep{e} {r:.2f}x" for e, r in zip(marks, ratios, strict=True))
            print(f"{a}/{b} {row:<16}" + cells)
    if len(modes) > 1:
        print(f"(goals: calls/beat after <= 3; tok/1k chars before/after >= 2.0 at ep{marks[-1]})")
    for m in modes:
        print(f"\n{m}: calls / prompt tokens / schema tokens by role and node, per episode")
        table = by_node(results[m], marks)
        print(f"{'role:node':<34}" + "".join(f"{f'ep{e}':>20}" for e in marks))
        for (role, node), cells in sorted(table.items()):
            line = f"{role + ':' + node:<34}"
            for e in marks:
                n, p, s = cells.get(e, (0, 0, 0))
                line += f"{f'{n} / {p} / {s}':>20}"
            print(line)


# ------------------------------------------------------------------------------ driver
def child(args: argparse.Namespace) -> None:
    if args.code:
        sys.path.insert(0, args.code)
    with tempfile.TemporaryDirectory() as d:
        result = run(args.episodes, Path(d))
    Path(args.out).write_text(json.dumps(result), encoding="utf-8")


def spawn(code: Path | None, episodes: int, out: Path, **env_extra: str) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", "--episodes", str(episodes), "--out", str(out)]
    if code is not None:
        cmd += ["--code", str(code)]
    env = dict(os.environ, PYTHONHASHSEED="0", **env_extra)
    env.pop("AIZAC_CONFIG", None)
    subprocess.run(cmd, check=True, env=env, cwd=tempfile.gettempdir())
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--before-rev", default=BEFORE_REV, help="git revision of the before run")
    ap.add_argument("--only", choices=("before", "after"), help="run one side only")
    ap.add_argument("--same-length", type=int, metavar="CHARS",
                    help="also run the working tree at this episode length (e.g. 1200, the old "
                    "4 x 300): the saving from calls and schemas alone")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--code", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if args.only in (None, "before"):
            code = tmp / "before"
            code.mkdir()
            git = ["git", "-C", str(ROOT), "archive", args.before_rev, "aizac", "data"]
            archive = subprocess.run(git, check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
            results["before"] = spawn(code, args.episodes, tmp / "before.json")
        if args.only in (None, "after"):
            results["after"] = spawn(ROOT, args.episodes, tmp / "after.json")
        if args.same_length:
            results[f"after@{args.same_length}"] = spawn(
                ROOT, args.episodes, tmp / "same.json", AIZAC_EPISODE_LENGTH=str(args.same_length)
            )
    report(results, args.episodes)


if __name__ == "__main__":
    main()
