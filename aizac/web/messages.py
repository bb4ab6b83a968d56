"""Korean for the English messages a writer meets in the web app: progress lines the pipeline
sends, errors, and the Models tab's reasons. Anything unmatched is shown as it is."""

from __future__ import annotations

import re
from collections.abc import Callable


def _both(match: re.Match[str]) -> str:
    """A status and its fallback's, each in Korean."""
    return f"{translate(match[1], 'ko')}; 대체 모델 사용 가능: {translate(match[2], 'ko')}"


def _whole(match: re.Match[str]) -> str:
    what = "화당 비트 수는" if match[1].startswith("Beats") else "한 화 분량은"
    return f"{what} 자연수로 입력하세요 (입력: {match[2]})."


_SCHEMAS = {"NovelPlot": "플롯", "BeatDesign": "비트 설계", "BeatSummary": "비트 요약",
            "CharacterProfile": "인물 소개"}


def _unusable(match: re.Match[str]) -> str:
    """A reply the quality check refused after every attempt, and what to do about it."""
    small = match[1] != "model"
    said = (f"{'내장 데모 모델' if small else '모델'}의 {_SCHEMAS.get(match[2], match[2])} 응답을 "
            f"{match[3]}번 받았지만 쓸 수 없었습니다 ({match[4]}). 저장된 것은 없습니다. ")
    if small:
        return said + ("내장 데모 모델은 작고 영어 위주라 한국어를 제대로 쓰지 못합니다: 모델 "
                       "탭에서 기획·집필 모델로 실제 모델을 지정하세요.")
    return said + "다시 시도하거나 모델 탭에서 다른 모델을 지정하세요."


# Korean for the messages the web layer and the writer pipeline send in English (progress
# lines and errors a writer meets in the editor). Anything unmatched is shown as it is.
_KO_MESSAGES: list[tuple[str, str | Callable[[re.Match[str]], str]]] = [
    (r"retrieving clichés for: (.*)", r"클리셰를 찾는 중: \1"),
    (r"planning the plot \(planner\)", "플롯을 구상하는 중 (기획 모델)"),
    (r"designing beat (\d+-\d+) \(planner\)", r"비트 \1을(를) 설계하는 중 (기획 모델)"),
    (r"designed beat (\d+-\d+)", r"비트 \1 설계 완료"),
    (r"new character\(s\): (.*)", r"새 인물: \1"),
    (r"extracting memories of beat (\d+-\d+) \(extractor\)",
     r"비트 \1의 기억을 추출하는 중 (추출 모델)"),
    (r"Type at least one keyword\.", "키워드를 하나 이상 입력하세요."),
    (r"No keywords given\.", "키워드를 하나 이상 입력하세요."),
    (r"Give the project a name\.", "프로젝트 이름을 입력하세요."),
    (r"No project is open\.", "열린 프로젝트가 없습니다. 프로젝트를 만들거나 목록에서 고르세요."),
    (r"No project selected\.", "열린 프로젝트가 없습니다. 프로젝트를 만들거나 목록에서 고르세요."),
    (r"A project named '(.*)' already exists\.", r"'\1' 프로젝트가 이미 있습니다."),
    (r"This project has no plot yet\.", "아직 플롯이 없습니다. 시작 탭에서 만들거나 직접 쓰세요."),
    (r"There is no draft beat( to edit)?\.", "초안 비트가 없습니다. 먼저 다음 비트를 누르세요."),
    (r"Pick an accepted beat first\.", "먼저 확정된 비트를 고르세요."),
    (r"Pick a branch to switch to\.", "전환할 갈래를 고르세요."),
    (r"Nothing to undo\.", "되돌릴 것이 없습니다."),
    (r"Nothing to redo\.", "다시 할 것이 없습니다."),
    (r"The prose is empty\.", "본문이 비어 있습니다."),
    (r"There is no prose to export yet\.",
     "내보낼 본문이 아직 없습니다. 비트를 확정하고 본문을 쓰세요."),
    (r"Select at least one memory first\.", "먼저 기억을 하나 이상 고르세요."),
    (r"Select the memories to plot first\.", "먼저 그릴 기억을 고르세요."),
    (r"Type a question first\.", "먼저 질문을 입력하세요."),
    (r"The plot needs exactly (\d+) acts, got (\d+)\.",
     r"플롯에는 막이 정확히 \1개 필요합니다 (지금 \2개)."),
    (r"This project already has a plot; a generated one would replace it\.",
     "이 프로젝트에는 이미 플롯이 있어, 새로 생성하면 지금 플롯을 대체합니다. 바꾸려면 "
     "'지금 플롯을 새 플롯으로 바꾸기'를 체크하고 다시 생성하세요."),
    (r"(.*) changed since (this page loaded it|you loaded it).*",
     "다른 탭에서 바뀌었습니다. 새로고침한 뒤 다시 적용하세요."),
    (r"Cancelled; the project was left as it was\.",
     "생성을 중단했습니다. 프로젝트는 그대로입니다."),
    (r"Beats per episode must be between (\d+) and (\d+) \(got (-?[\d,]+)\)\.",
     r"화당 비트 수는 \1에서 \2 사이여야 합니다 (입력: \3)."),
    (r"Episode length must be between ([\d,]+) and ([\d,]+) \(got (-?[\d,]+)\)\.",
     r"한 화 분량은 \1에서 \2 사이여야 합니다 (입력: \3). 한국어·중국어는 글자 수, "
     r"영어는 단어 수입니다."),
    (r"(Beats per episode|Episode length) must be a whole number \(got (.*)\)\.", _whole),
    (r"A draft beat is waiting at (\d+-\d+): a new number of beats per episode would move "
     r"it\.", r"초안 비트가 \1에서 기다리고 있어 화당 비트 수를 바꾸면 위치가 달라집니다. "
     r"초안을 먼저 확정하거나 되돌린 뒤 바꾸세요."),
    # a structured reply the quality check refused (writer/checked.py); the details stay as
    # the check wrote them (they quote the model's text)
    (r"The (embedded demo model|model)'s (\w+) was unusable after (\d+) attempts: (.*)\.",
     _unusable),
    # why a role's model can or cannot run (the Models tab) and connection-test errors
    (r"injected", "테스트용으로 주입된 모델"),
    (r"(.+); fallback usable: (.+)", _both),
    (r"([A-Z_]+) is set", r"\1 설정됨"),
    (r"([A-Z_]+) is not set", r"\1 없음 (아래에서 키를 저장하세요)"),
    (r"([A-Z_]+) is not set, but (\S+)=(\S+) needs it\.",
     r"\3 모델에는 \1 키가 필요한데 없습니다. 아래에서 키를 저장하거나 다른 모델을 지정하세요."),
    (r"server (\S+) \(reachability not checked\)", r"서버 \1 (접속 여부는 확인 전)"),
    (r"OPENAI_BASE_URL=(\S+) \(no key\)", r"OPENAI_BASE_URL=\1 (키 없음)"),
    (r"the embedded runtime xllamacpp is not installed \((.*)\)",
     r"내장 실행기 xllamacpp가 설치되어 있지 않습니다 (\1)"),
    (r"unknown provider (.+)", r"알 수 없는 제공자 \1"),
    (r"(\S+\.gguf) \((\d+) MB\)", r"\1 (\2 MB, 내장 모델)"),
]


def translate(message: str, language: str = "en") -> str:
    """``message`` (an English progress line or error) in the interface language."""
    if language != "ko":
        return message
    for pattern, replacement in _KO_MESSAGES:
        if match := re.fullmatch(pattern, message.strip(), flags=re.S):
            return replacement(match) if callable(replacement) else match.expand(replacement)
    return message
