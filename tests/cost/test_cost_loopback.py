"""The cost path end to end: real ChatOpenAI against the loopback OpenAI-compatible server.

A Korean project writes one episode with every role on the server; what the server received
is what a paid API would bill.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acceptance.openai_server import OpenAIServer, requested_schema
from acceptance.outline import outline_of
from pydantic import SecretStr

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.settings_values import ROLES
from aizac.writer.service import Studio

CAST = ["강준", "서유나"]


def _name(body: dict[str, Any]) -> str:
    outlined = outline_of(body)
    if outlined is not None:
        return outlined[0]
    fmt = body.get("response_format") or {}
    return str(fmt.get("json_schema", {}).get("name", "")) if fmt else ""


def korean(body: dict[str, Any]) -> Any:
    """Small valid Korean answers for each schema; prose of the length the prompt asks for."""
    name = _name(body)
    facts = {
        "story": {"facts": [{"text": "강준이 열쇠를 얻었다.", "keyword": "열쇠"}]},
        "characters": {"facts": [{"who": "강준", "aspect": "condition",
                                  "text": "강준은 지쳤다."}]},
        "relations": {"facts": [{"a": "강준", "b": "서유나", "text": "둘은 손을 잡았다."}]},
        "settings": {"facts": [{"keyword": "북문", "text": "북문은 밤에만 열린다."}]},
    }
    if name == "NovelPlot":
        stages = ("exposition", "development", "crisis", "climax", "resolution")
        return {
            "title": "북문", "logline": "열쇠공이 문을 연다.", "genre": "현대 판타지",
            "characters": [{"name": c, "role": "주연", "profile": "비밀이 있다."} for c in CAST],
            # Distinct acts: one sentence in every act is degenerate output (writer.quality).
            "acts": [{"stage": s, "goal": f"{g}.", "episodes": 2, "key_events": [f"마침내 {g}."]}
                     for s, g in zip(stages, ("문을 찾는다", "열쇠를 모은다", "문지기에게 쫓긴다",
                                              "문을 연다", "문 너머에 선다"), strict=True)],
        }
    if name.startswith("BeatDesign"):
        return {"location": "북문 시장", "time": "밤", "characters": CAST,
                "events": ["강준이 서유나와 문 앞에 선다."]}
    if name == "BeatExtraction":
        return {**facts, "summary": "강준과 서유나가 문 앞에 섰다."}
    if name == "BeatSummary":
        return {"summary": "강준과 서유나가 문 앞에 섰다."}
    if name.endswith("Extraction"):
        key = {"Story": "story", "Character": "characters", "Relation": "relations",
               "Setting": "settings"}[name.removesuffix("Extraction")]
        return facts[key]
    if requested_schema(body) is not None:
        return {}
    prompt = "\n".join(str(m.get("content")) for m in body["messages"])
    assert "자 정도" in prompt
    size = int(prompt.split("자 정도")[0].rsplit(" ", 1)[-1].replace(",", ""))
    paragraphs = [f"{i}번째 문단, 비가 그친 골목에 불빛이 번졌다." for i in range(size // 25 + 1)]
    return "\n\n".join(paragraphs)


def studio(tmp_path: Path, server: OpenAIServer, **options: Any) -> Studio:
    specs: dict[str, Any] = {
        f"{r}_model": f"openai-compatible:{server.base_url}:{r}" for r in ROLES
    }
    settings = Settings(data_dir=tmp_path, language="ko", transient_retries=0,
                        openai_compatible_api_key=SecretStr("k"), **specs)
    return Studio(settings, embeddings=HashingEmbeddings(),
                  cliches=ClicheDB(embeddings=HashingEmbeddings()), **options)


def test_a_korean_episode_costs_three_calls_per_beat(tmp_path: Path) -> None:
    with OpenAIServer(korean) as server:
        # No option: the combined call because the openai-compatible model declares it.
        agent = studio(tmp_path, server).create("북문", "회귀, 열쇠", language="ko")
        agent.plan()
        before = len(server.chat_requests)
        while agent.next_position()[0] == 1:
            draft = agent.next_beat()
            agent.accept(draft.id)
            "".join(agent.write_prose(draft.id))
        sent = [r.body for r in server.chat_requests[before:]]
    assert agent.episodes.current().beats == 4
    assert len(sent) == 3 * 4  # design, one combined extraction, prose: per beat
    names = [_name(b) for b in sent]
    assert names.count("BeatExtraction") == 4 and "StoryExtraction" not in names
    prose = [b for b in sent if b.get("stream")]
    assert all("1250자 정도" in json.dumps(b, ensure_ascii=False) for b in prose)
    total = sum(len(b.prose or "") for b in agent.beats(1))
    assert 4 * 1250 <= total <= 4 * 1600  # the default Korean episode is ~5,000 characters
    for body in sent:
        schema = requested_schema(body)
        if schema is not None:  # the wire copy: no per-property titles or defaults
            text = json.dumps(schema, ensure_ascii=False)
            assert '"default"' not in text and text.count('"title"') <= 1


def test_per_project_length_changes_the_next_prose_prompt(tmp_path: Path) -> None:
    with OpenAIServer(korean) as server:
        made = studio(tmp_path, server, episode_length=6000)
        agent = made.create("짧은", "회귀", language="ko", beats_per_episode=2,
                            episode_length=3000)
        assert (agent.episodes.current().beats, agent.episodes.current().per_beat) == (2, 1500)
        agent.plan()
        draft = agent.next_beat()
        agent.accept(draft.id)
        agent.episodes.set(beats=2, length=2000)
        "".join(agent.write_prose(draft.id))
        prose = [r.body for r in server.chat_requests if r.body.get("stream")]
    assert "1000자 정도" in json.dumps(prose[-1], ensure_ascii=False)
    other = made.create("기본", "회귀", language="ko")
    assert other.episodes.current().length == 6000  # the service's value, no project value
