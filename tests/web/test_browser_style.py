"""The Style & voices tab in chromium, in Korean, English and Chinese: the writer's style from
their edits (a chart, the measures, the words they delete), the voices learned from accepted
dialogue with their history, the draft's dialogue findings before it is accepted, and setting a
pair's voice by hand. Screenshots of both panels go to docs/screens/style-dialogue/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.dialogue.memory import set_card
from aizac.text import t
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    field,
    pick,
    served,
    status_says,
    tab,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "style-dialogue"
EDITED = ("아렌은 성문을 열었어.\n바람이 거셌어.\n“선배, 잠깐만요.”\n쿵. 심장이 뛰었어…\n"
          "미라는 대답하지 않았어. 아렌은 그 뒤를 따랐어.")


def _shot(page: Any, name: str, element: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(500)
    page.locator(f"#{element}").screenshot(path=str(SCREENS / f"{name}.png"), scale="css")


def _shows(page: Any, elem_id: str, text: str) -> None:
    """Wait until the element's visible text holds ``text`` (a Gradio table keeps hidden
    copies of its cells, so a text locator may find an invisible one first)."""
    page.wait_for_function("([id, text]) => (document.getElementById(id)?.innerText || '')"
                           ".includes(text)", arg=[elem_id, text])


def _written(tmp_path: Path, cliche_db: ClicheDB, model: ScriptedChatModel) -> None:
    """A Korean project: two accepted beats where 아렌 speaks politely to 미라 (선배), the
    writer's edit of the first beat's prose, and a draft where 아렌 suddenly uses 반말."""
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.writer.service import Studio

    settings = Settings(data_dir=tmp_path / "data", language="en", structured_retries=1,
                        transient_retries=0)
    studio = Studio(settings, models=dict.fromkeys(("planner", "writer", "extractor",
                                                    "reviewer"), model),
                    embeddings=HashingEmbeddings(), cliches=cliche_db, beats_per_episode=3)
    agent = studio.create("새벽", "회귀, 복수", language="ko")
    agent.plan()
    model.react("", {"dialogue": [{"speaker": "아렌", "line": "선배, 잠깐만요."}]})
    for _ in range(2):
        draft = agent.next_beat()
        agent.accept(draft.id)
        "".join(agent.write_prose(draft.id))
    first = agent.store.beats(status="accepted")[0]
    agent.save_prose(first.id, EDITED)
    model.react("", {"dialogue": [{"speaker": "아렌", "line": "미라, 어디 가?"}]})
    agent.next_beat()
    set_card(agent.memory, "미라", register="차분하고 단정함",
             catchphrases=["그건 당신 사정이에요"], language="ko", chapter=1)
    studio.close()


@pytest.mark.parametrize("language", ["ko", "en", "zh"])
def test_the_style_and_voices_tab(tmp_path: Path, cliche_db: ClicheDB, language: str) -> None:
    model = ScriptedChatModel()
    model.speak_korean()
    _written(tmp_path, cliche_db, model)
    locale = {"ko": "ko-KR", "en": "en-US", "zh": "zh-CN"}[language]
    with served(tmp_path, cliche_db, model, language=language) as url, \
            browser_page(url, locale=locale) as page:
        tab(page, t("ui.tab.style", language))
        _shows(page, "aizac-style-summary", t("style.scope.project", language))
        assert t("ui.style.heading", language) in page.locator("#aizac-style-panel").inner_text()
        page.locator("#aizac-style-chart [data-testid='matplotlib'] img").wait_for()
        table = page.locator("#aizac-style-table").inner_text()
        assert t("style.metric.ending_eo", language) in table
        pairs = page.locator("#aizac-voice-pairs")
        _shows(page, "aizac-voice-pairs", "선배")  # 아렌 -> 미라, learned from the lines
        assert t("dialogue.level.polite", language) in pairs.inner_text()
        findings = page.locator("#aizac-voice-findings")
        _shows(page, "aizac-voice-findings", t("ui.severity.error", language))
        said = findings.inner_text()
        # a finding is written in the project's language (it is read beside the prose), its
        # severity in the page's
        assert "미라" in said and t("dialogue.level.plain", "ko") in said
        assert page.outside_requests == []
        _shot(page, f"{language}-style", "aizac-style-panel")
        _shot(page, f"{language}-voices", "aizac-voices-panel")
        if language != "ko":
            return
        # the writer decides the falling-out is meant: from now on 아렌 speaks 반말 to 미라
        pick(page, "aizac-voice-speaker", "아렌")
        pick(page, "aizac-voice-listener", "미라")
        pick(page, "aizac-voice-level", t("dialogue.level.plain", "ko"))
        field(page, "aizac-voice-address").fill("미라")
        click(page, "aizac-voice-save")
        status_says(page, "저장했습니다")
        _shows(page, "aizac-voice-findings", t("ui.voices.clean", "ko"))
        _shows(page, "aizac-voice-pairs", "존댓말(해요체) · 선배")  # the history column
        assert "그건 당신 사정이에요" in page.locator("#aizac-voice-cards").inner_text()
        page.get_by_text(t("style.scope.writer", "ko")).first.click()
        status_says(page, t("ui.style.scope_set", "ko", scope=t("style.scope.writer", "ko")))
        _shot(page, "ko-voices-after-set", "aizac-voices-panel")
