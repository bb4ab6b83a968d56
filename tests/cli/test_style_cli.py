"""``aizac style`` and ``aizac voices`` on a real project (fake models, real memory)."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from aizac.cli.style import register
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

EDITED = "아렌은 문을 열었어.\n바람이 거셌어.\n“미라, 잠깐만.”\n쿵. 심장이 뛰었어."


def _studio(data_dir: Path, line: str = "선배, 잠깐만요.") -> Studio:
    model = ScriptedChatModel()
    model.speak_korean()
    model.react("", {"dialogue": [{"speaker": "아렌", "line": line}]})
    settings = Settings(data_dir=data_dir, language="ko", structured_retries=1)
    roles = ("planner", "writer", "extractor", "reviewer")
    return Studio(settings, models=dict.fromkeys(roles, model), embeddings=HashingEmbeddings(),
                  cliches=ClicheDB(embeddings=HashingEmbeddings()))


def test_style_and_voices_show_what_the_writer_and_the_dialogue_taught(tmp_path: Path) -> None:
    studio = _studio(tmp_path)
    agent = studio.create("novel", "회귀, 복수", language="ko")
    agent.plan()
    draft = agent.next_beat()
    agent.accept(draft.id)  # the line teaches 아렌 -> 미라: 해요체, 선배
    "".join(agent.write_prose(draft.id))
    agent.save_prose(draft.id, EDITED)
    studio.close()

    app = typer.Typer()
    register(app, lambda: _studio(tmp_path))
    app.command("noop")(lambda: None)
    runner = CliRunner()
    out = runner.invoke(app, ["style", "--lang", "en", "--chart", str(tmp_path / "c.png")])
    assert out.exit_code == 0, out.output
    assert "Style of 'novel'" in out.output and "1 passages of your own text" in out.output
    assert "Ending -eo" in out.output and "Episode 1:" in out.output
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    ko = runner.invoke(app, ["style", "--lang", "ko"])
    assert "문장 길이" in ko.output and "1화:" in ko.output

    voices = runner.invoke(app, ["voices", "--lang", "ko"])
    assert voices.exit_code == 0, voices.output
    assert "아렌은 미라에게 존댓말(해요체), 호칭 '선배'" in voices.output
    changed = runner.invoke(app, ["voices", "--set", "아렌", "미라", "--level", "plain",
                                  "--address", "미라야", "--history", "--lang", "ko"])
    assert "저장했습니다" in changed.output and "반말, 호칭 '미라야'" in changed.output
    assert "이전: 아렌은 미라에게 존댓말(해요체)" in changed.output
    bad = runner.invoke(app, ["voices", "--set", "아렌", "아무개", "--level", "plain"])
    assert bad.exit_code != 0 and "아무개" in bad.output
    scope = runner.invoke(app, ["style", "--scope", "writer", "--lang", "en"])
    assert "learned from all my projects" in scope.output



def test_aizac_beat_shows_the_drafts_dialogue_findings_before_accepting(
        tmp_path: Path) -> None:
    from aizac.cli.story import register as register_story

    studio = _studio(tmp_path)
    agent = studio.create("novel", "회귀, 복수", language="ko")
    agent.plan()
    agent.accept(agent.next_beat().id)  # 아렌 -> 미라: 해요체, 선배
    studio.close()
    app = typer.Typer()
    register_story(app, lambda: _studio(tmp_path, "미라, 어디 가?"))
    app.command("noop")(lambda: None)
    out = CliRunner().invoke(app, ["beat"])
    assert out.exit_code == 0, out.output
    assert ("the check found an error in the draft: 2번 비트: 아렌의 미라에 대한 말투가 반말"
            in out.output)
