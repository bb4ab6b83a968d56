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


# every schema a checked structured call asks for (writer, combined calls, autopilot episodes)
_SCHEMAS = {"NovelPlot": "플롯", "BeatDesign": "비트 설계", "BeatDesignWithCast": "비트 설계",
            "BeatSummary": "비트 요약", "CharacterProfile": "인물 소개",
            "BeatExtraction": "기억 추출", "StoryExtraction": "사건 기억 추출",
            "CharacterExtraction": "인물 기억 추출", "RelationExtraction": "관계 기억 추출",
            "SettingExtraction": "설정 기억 추출", "EpisodeDesign": "회차 설계",
            "EpisodeExtraction": "회차 기억 추출"}


def _unusable(match: re.Match[str]) -> str:
    """A reply the quality check refused after every attempt, and what to do about it."""
    small = match[1] != "model"
    said = (f"{'내장 데모 모델' if small else '모델'}의 {_SCHEMAS.get(match[2], match[2])} 응답을 "
            f"{match[3]}번 받았지만 쓸 수 없었습니다 ({match[4]}). 저장된 것은 없습니다. ")
    if small:
        return said + ("내장 데모 모델은 작고 영어 위주라 한국어를 제대로 쓰지 못합니다: 모델 "
                       "탭에서 기획·집필 모델로 실제 모델을 지정하세요.")
    return said + "다시 시도하거나 모델 탭에서 다른 모델을 지정하세요."


_FIELDS = {"Project name": "프로젝트 이름", "Genre": "장르", "The instruction": "지시문",
           "The prose": "본문", "The file name": "파일 이름", "Keywords": "키워드",
           "Title": "제목", "Logline": "로그라인", "Characters": "인물", "Settings": "설정 표",
           "Acts": "막 표", "Location": "장소", "Time": "시간", "Events": "사건",
           "Dialogue": "대사", "Emotions": "감정", "Conflicts": "갈등", "Sets up": "복선",
           "Pays off": "회수", "Beats per episode": "화당 비트 수",
           "Episode length": "한 화 분량", "Summary": "요약", "The question": "질문",
           "The subject": "메일 제목", "The title": "제목"}
_STAGES = {"exposition": "발단", "development": "전개", "crisis": "위기", "climax": "절정",
           "resolution": "결말"}
_STATUS = {"accepted": "이미 확정된", "rejected": "버려진", "draft": "초안인"}


_MODEL_ADVICE = "제공자 상태와 키를 확인하거나 모델 탭에서 대체 모델을 지정하세요."
_ROLES = {"planner": "기획", "writer": "집필", "extractor": "추출", "reviewer": "검토"}
_CAUSES = [  # llm.errors.summarize: why a model call failed
    (r"HTTP (\d+): the key was rejected", r"HTTP \1: 키가 거부되었습니다"),
    (r"HTTP 429: rate limited", "HTTP 429: 요청 한도를 넘었습니다"),
    (r"the request timed out", "응답 시간이 초과되었습니다"),
    (r"could not connect to the server", "서버에 연결할 수 없습니다"),
    (r"the provider returned a malformed \(non-JSON or unexpected\) response",
     "제공자가 형식에 맞지 않는 응답을 보냈습니다"),
    (r"the connection dropped", "연결이 끊겼습니다"),
]


def _cause(text: str) -> str:
    for pattern, korean in _CAUSES:
        if match := re.fullmatch(pattern, text):
            return match.expand(korean)
    return text  # an exception's own words (HTTP status, type and first line): quoted as is


def _model_failed(match: re.Match[str]) -> str:
    """A model call that failed after its retries (llm.resilient)."""
    tries = f" ({match[3]}번 시도)" if match[3] else ""
    return (f"{_ROLES.get(match[1], match[1])} 모델 {match[2]} 호출이 실패했습니다{tries}: "
            f"{_cause(match[4])}. {_MODEL_ADVICE}")


def _reply_cut(match: re.Match[str]) -> str:
    """A reply that did not come to its end (llm.resilient); nothing was saved."""
    said = {"the reply was cut at the model's token limit (finish reason: length)":
            "응답이 모델의 토큰 한도에서 잘렸습니다",
            "the reply stream stopped before its end (no finish reason)":
            "응답이 끝나기 전에 멈췄습니다"}.get(match[3])
    if said is None:
        said = f"응답이 끝나기 전에 끊겼습니다 ({_cause(match[4] or '')})"
    return (f"{_ROLES.get(match[1], match[1])} 모델 {match[2]}: {said}. 저장된 것은 없습니다. "
            "다시 시도하고, 되풀이되면 역할의 토큰 한도를 늘리거나 출력 한도가 큰 모델을 "
            "쓰세요.")


def _then_fallback(match: re.Match[str]) -> str:
    first = translate(match[1], "ko").replace(f" {_MODEL_ADVICE}", "")  # said once, at the end
    return f"{first} 이어서 대체 모델도 실패: {translate(match[2], 'ko')}"


# what to do when the disk or the data folder failed (nothing was half-written)
_DISK = "디스크 공간과 데이터 폴더(AIZAC_DATA_DIR)의 쓰기 권한을 확인한 뒤 다시 시도하세요."


def _field(name: str) -> str:
    """A form field's Korean label (the English one quoted when unknown)."""
    return _FIELDS.get(name, f"'{name}'")


def _subject(word: str) -> str:
    """``word`` with 이 or 가: 이 after a final consonant (batchim), 가 after a vowel."""
    last = word[-1:]
    if "가" <= last <= "힣":
        return word + ("이" if (ord(last) - ord("가")) % 28 else "가")
    return word + "이(가)"


def _too_long(match: re.Match[str]) -> str:
    return (f"{_subject(_field(match[1]))} {match[2]}자로 너무 깁니다 (최대 {match[3]}자). "
            "줄인 뒤 다시 시도하세요.")


def _act_count(match: re.Match[str]) -> str:
    return (f"{_STAGES.get(match[1], match[1])} 막의 화 수는 1 이상의 자연수여야 합니다 "
            f"(입력: {match[2]}).")


def _not_draft(match: re.Match[str]) -> str:
    status = _STATUS.get(match[2], f"'{match[2]}' 상태인")
    return (f"비트 {match[1]}은(는) {status} 비트라 고칠 수 없습니다. 새로고침해 지금 상태를 "
            "보세요. 확정된 비트는 확정을 실행 취소한 뒤에만 바뀝니다.")


def _not_accepted(match: re.Match[str]) -> str:
    status = _STATUS.get(match[2], f"'{match[2]}' 상태인")
    return (f"비트 {match[1]}은(는) {status} 비트입니다. 본문은 확정된 비트에만 씁니다. "
            "먼저 확정하세요.")


_SMTP_STAGES = {"connecting to": "접속", "starting TLS with": "TLS 시작",
                "logging in to": "로그인", "sending through": "전송"}


def _unsupported(match: re.Match[str]) -> str:
    return (f"메일 서버 {match[1]}가 {_SMTP_STAGES.get(match[2], match[2])} 중 요청을 지원하지 "
            f"않습니다: {match[3]}. AIZAC_SMTP_STARTTLS, AIZAC_SMTP_USER, AIZAC_SMTP_PORT 설정을 "
            "확인하세요.")


def _mail_failed(match: re.Match[str]) -> str:
    return (f"메일 서버 {match[2]} {_SMTP_STAGES.get(match[1], match[1])} 중 메일 보내기에 "
            f"실패했습니다 ({match[3]}). 보낸 것은 없습니다. AIZAC_SMTP_* 설정과 메일 서버 "
            "접속을 확인하세요.")


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
    # errors of the editor, the plot and the beats (writer/*, web/*)
    (r"The (\w+) act's episode count must be a whole number from 1 up, got (.*)\.", _act_count),
    (r"Dialogue line (.*) needs the form 'Speaker: line'\.",
     r"대사 \1은(는) '화자: 대사' 형식으로 쓰세요."),
    (r"The beat is not valid: (.*)\.", r"비트가 올바르지 않습니다: \1. 고친 뒤 다시 적용하세요."),
    (r"The plot is not valid: (.*)\.", r"플롯이 올바르지 않습니다: \1. 고친 뒤 다시 적용하세요."),
    (r"The edited beat is not valid: (.*)", r"고친 비트가 올바르지 않습니다: \1. 고친 뒤 다시 "
     r"적용하세요."),
    (r"Episode numbers are whole numbers from 1 up, got (.*)\.",
     r"화 번호는 1 이상의 자연수입니다 (입력: \1)."),
    (r"The question is longer than (\d+) characters\.",
     r"질문이 너무 깁니다 (최대 \1자). 줄인 뒤 다시 물어보세요."),
    (r"The question is empty\.", "먼저 질문을 입력하세요."),
    (r"The question is ([\d,]+) characters long; the limit is ([\d,]+)\.",
     r"질문이 \1자로 너무 깁니다 (최대 \2자). 줄인 뒤 다시 물어보세요."),
    (r"Too many or too long keywords \(at most (\d+), (\d+) characters each\)\.",
     r"키워드가 너무 많거나 깁니다 (최대 \1개, 각 \2자). 줄인 뒤 다시 시도하세요."),
    (r"The genre is too long \(at most (\d+) characters\)\.",
     r"장르가 너무 깁니다 (최대 \1자). 줄인 뒤 다시 시도하세요."),
    (r"Pick a suggestion first\.", "먼저 제안을 하나 고르세요."),
    (r"Beats were already accepted on this plot; replanning would orphan them\.",
     "이 플롯에는 이미 확정된 비트가 있어, 플롯을 다시 생성하면 그 비트들이 플롯과 어긋납니다. "
     "새 플롯은 새 프로젝트에서 생성하거나, 플롯 탭에서 이 플롯의 항목을 직접 고치세요."),
    (r"Beat (\S+) is not the next beat of the story\.",
     r"비트 \1은(는) 이야기의 다음 비트가 아닙니다. 새로고침한 뒤 다시 시도하세요."),
    (r"Beat (\S+) is not the last accepted beat\.",
     r"비트 \1은(는) 마지막으로 확정된 비트가 아닙니다. 확정은 마지막 비트부터 실행 취소할 수 "
     r"있습니다. 새로고침한 뒤 다시 시도하세요."),
    (r"The writer model returned no prose\.",
     "집필 모델이 본문을 돌려주지 않았습니다. 다시 시도하거나 모델 탭에서 다른 모델을 지정하세요."),
    (r"No accepted beat to write\.", "본문을 쓸 확정된 비트가 없습니다. 먼저 비트를 확정하세요."),
    (r"No beat with id (\S+)\.", r"비트 \1이(가) 없습니다. 새로고침한 뒤 다시 고르세요."),
    (r"Episode (\d+) already has (?:another )?a?\s?beat (\d+)\.",
     r"\1화에는 이미 \2번 비트가 있습니다. 새로고침한 뒤 다시 시도하세요."),
    (r"The beat (\S+) is (\w+); only a draft can be changed\.", _not_draft),
    (r"The beat (\S+) is (\w+); prose is written for accepted beats\.", _not_accepted),
    (r"The project (.*) is open in another aizac process(.*)\.",
     r"프로젝트 \1을(를) 다른 aizac 프로세스가 열고 있습니다\2. 그쪽을 닫거나 끝날 때까지 "
     r"기다린 뒤 다시 시도하세요. 바뀐 것은 없습니다."),
    (r"(.*) is not a valid project name\.",
     r"\1은(는) 프로젝트 이름으로 쓸 수 없습니다. 글자나 숫자로 시작하는 64자 이하의 이름을 "
     r"쓰세요 (글자, 숫자, 빈칸, '.', '-', '_'; '/'와 '..'은 안 됩니다)."),
    (r"No project named (.*) in (.*)\.",
     r"프로젝트 \1이(가) \2에 없습니다. 새로고침한 뒤 목록에서 다시 고르세요."),
    (r"The saved undo tree is damaged: (.*)\.",
     r"저장된 기록(실행 취소 이력)이 손상되었습니다: \1. 백업에서 프로젝트 파일을 "
     r"복원하거나 기록을 새로 시작하세요."),
    # storage: the disk or the data folder failed; nothing was half-written
    (r"Accepting beat (\S+) failed while writing: (.*)\. Nothing was accepted\.",
     r"비트 \1을(를) 확정하다가 저장에 실패했습니다 (\2). 확정된 것은 없습니다. " + _DISK),
    (r"Accepting beat (\S+) failed \((.*)\) and could not be undone yet \((.*)\)\.",
     r"비트 \1 확정이 실패했고 (\2) 아직 되돌리지 못했습니다 (\3). 디스크 공간을 확보한 뒤 이 "
     r"프로젝트를 다시 열면 마무리됩니다."),
    (r"Cannot open project database (.*): (.*)\.",
     r"프로젝트 데이터베이스 \1을(를) 열 수 없습니다: \2. " + _DISK),
    (r"(Writing|Reading) (.*) failed: (.*)\.",
     r"\2 저장 또는 읽기에 실패했습니다: \3. " + _DISK),
    (r"Cannot create (.*): (.*)\.", r"\1을(를) 만들 수 없습니다: \2. " + _DISK),
    (r"Cannot record the current project in (.*): (.*)\.",
     r"지금 프로젝트를 \1에 기록할 수 없습니다: \2. " + _DISK),
    (r"Could not write (.*): (.*)\.", r"\1을(를) 쓸 수 없습니다: \2. " + _DISK),
    (r"Could not create the export folder (.*): (.*)\.",
     r"내보내기 폴더 \1을(를) 만들 수 없습니다: \2. " + _DISK),
    # exports and email (export/*)
    (r"The email address contains a line break or control character; it was rejected\.",
     "이메일 주소에 줄바꿈이나 제어 문자가 있어 받지 않았습니다. 주소를 한 줄로 입력하세요."),
    (r"The email address is empty\.", "이메일 주소를 입력하세요."),
    (r"(.*) is not a single email address\.",
     r"\1은(는) 이메일 주소 하나가 아닙니다. 주소를 하나만 입력하세요."),
    (r"(.*) is not a valid email address \(the part before '@'\)\.",
     r"\1은(는) 올바른 이메일 주소가 아닙니다 ('@' 앞부분). 주소를 확인하세요."),
    (r"(.*) is not a valid email address \(the domain after '@'\)\.",
     r"\1은(는) 올바른 이메일 주소가 아닙니다 ('@' 뒤 도메인). 주소를 확인하세요."),
    (r"(.*) has an invalid domain\.", r"\1의 도메인이 올바르지 않습니다. 주소를 확인하세요."),
    (r"The subject contains a line break or control character; it was rejected\.",
     "제목에 줄바꿈이나 제어 문자가 있어 받지 않았습니다. 제목을 한 줄로 입력하세요."),
    (r"The subject is empty\.", "메일 제목을 입력하세요."),
    (r"The subject is ([\d,]+) characters long; the limit is ([\d,]+)\.",
     r"메일 제목이 \1자로 너무 깁니다 (최대 \2자). 줄인 뒤 다시 보내세요."),
    (r"The message body contains a NUL character\.",
     "메일 본문에 NUL 문자가 있어 보낼 수 없습니다. 본문에서 그 문자를 지우세요."),
    (r"Email is not configured: no SMTP server is set\.",
     "메일 보내기가 설정되어 있지 않습니다 (SMTP 서버 없음). AIZAC_SMTP_HOST 등 AIZAC_SMTP_* "
     "설정을 지정한 뒤 다시 시작하세요."),
    (r"Email has no sender address\.",
     "보내는 사람 주소가 설정되어 있지 않습니다. AIZAC_SMTP_SENDER에 주소를 지정하세요."),
    (r"AIZAC_SMTP_USER is set but AIZAC_SMTP_PASSWORD is not\.",
     "AIZAC_SMTP_USER는 있는데 AIZAC_SMTP_PASSWORD가 없습니다. 비밀번호를 설정하세요."),
    (r"The (.*) header would contain a line break; the message was not sent\.",
     r"메일 머리글 \1에 줄바꿈이 들어가 메일을 보내지 않았습니다. 줄바꿈을 지우세요."),
    (r"The mail server (\S+) refused the login for (.*)\.",
     r"메일 서버 \1가 \2 계정의 로그인을 거부했습니다. AIZAC_SMTP_USER와 AIZAC_SMTP_PASSWORD를 "
     r"확인하세요."),
    (r"The mail server (\S+) does not support what was asked while (.+?) it: (.*)\.",
     _unsupported),
    (r"The mail server (\S+) refused the recipient (.*); nothing was sent\.",
     r"메일 서버 \1가 받는 사람 \2을(를) 거부해 아무것도 보내지 않았습니다. 주소를 확인하세요."),
    (r"Email failed while (connecting to|starting TLS with|logging in to|sending through) "
     r"(\S+): (.*)\.", _mail_failed),
    (r"The sender address (.*) is not a valid email address\.",
     r"보내는 사람 주소 \1이(가) 올바른 이메일 주소가 아닙니다. AIZAC_SMTP_SENDER(없으면 "
     r"AIZAC_SMTP_USER)를 고치세요."),
    (r"The export name is empty\.", "내보낼 파일 이름을 입력하세요."),
    (r"The export name (.*) contains (.*), which a file name cannot hold\.",
     r"파일 이름 \1에 파일 이름에 쓸 수 없는 문자(\2)가 있습니다. 그 문자를 빼고 입력하세요."),
    (r"The export name (.*) contains '\.\.'\.",
     r"파일 이름 \1에 '..'이 있습니다. 빼고 입력하세요."),
    (r"The export name (.*) contains a control or invisible formatting character\.",
     r"파일 이름 \1에 제어 문자나 보이지 않는 서식 문자가 있습니다. 다시 입력하세요."),
    (r"The export name (.*) starts with a dot \(a hidden file\)\.",
     r"파일 이름 \1이(가) 점으로 시작합니다 (숨김 파일). 점 없이 시작하세요."),
    (r"The export name (.*) ends with a dot\.",
     r"파일 이름 \1이(가) 점으로 끝납니다. 끝의 점을 빼세요."),
    (r"The export name (.*) is a reserved device name\.",
     r"파일 이름 \1은(는) 시스템이 쓰는 장치 이름이라 쓸 수 없습니다. 다른 이름을 입력하세요."),
    (r"The export name is too long \((\d+) bytes in UTF-8; the limit is (\d+)\)\.",
     r"파일 이름이 너무 깁니다 (UTF-8로 \1바이트, 최대 \2바이트). 줄여서 입력하세요."),
    (r"The range is reversed: first episode (\d+) comes after last episode (\d+)\.",
     r"범위가 뒤집혔습니다: 첫 화 \1이(가) 마지막 화 \2보다 뒤입니다. 범위를 고치세요."),
    (r"There are no episodes to export yet\.",
     "내보낼 화가 아직 없습니다. 비트를 확정하고 본문을 쓰세요."),
    (r"(.*) has no episodes to export\.",
     r"\1에는 내보낼 화가 없습니다. 비트를 확정하고 본문을 쓰세요."),
    (r"No episode is numbered between (\d+) and (\d+)\.",
     r"\1화에서 \2화 사이에 있는 화가 없습니다. 범위를 고치세요."),
    (r"Episode (\d+): the title is (\d+) characters long; the limit is (\d+)\.",
     r"\1화 제목이 \2자로 너무 깁니다 (최대 \3자). 줄인 뒤 다시 내보내세요."),
    (r"The manuscript needs a title\.", "원고 제목을 입력하세요."),
    (r"The title is (\d+) characters long; the limit is (\d+)\.",
     r"제목이 \1자로 너무 깁니다 (최대 \2자). 줄인 뒤 다시 시도하세요."),
    (r"Episode numbers must be unique; repeated: (.*)\.",
     r"화 번호가 겹칩니다: \1. 화 번호를 하나씩만 쓰세요."),
    (r"The (first|last) episode must be a whole number from 1 up, got (.*)\.",
     r"내보낼 범위의 화 번호는 1 이상의 자연수여야 합니다 (입력: \2)."),
    # the memory store and the inspector (memory/*, retrieval/*)
    (r"Cannot reach the Chroma server at (\S+) \(AIZAC_CHROMA_HOST / AIZAC_CHROMA_PORT\): (.*)",
     r"Chroma 서버 \1에 접속할 수 없습니다: \2. 서버가 켜져 있는지, AIZAC_CHROMA_HOST와 "
     r"AIZAC_CHROMA_PORT가 맞는지 확인하세요."),
    (r"Cannot open the (embedded memory store|memory store|memory commit journal|memory key "
     r"index) at (.*): (.*)", r"기억 저장소 \2을(를) 열 수 없습니다: \3. " + _DISK),
    (r"Cannot create the memory folder (.*): (.*)",
     r"기억 폴더 \1을(를) 만들 수 없습니다: \2. " + _DISK),
    (r"Unknown memory id\(s\): (.*)\.",
     r"없는 기억입니다: \1. 새로고침한 뒤 기억 목록에서 다시 고르세요."),
    (r"Memory (\S+) was superseded meanwhile; nothing was written\.",
     r"기억 \1이(가) 그사이 다른 기억으로 바뀌어 아무것도 저장하지 않았습니다. 새로고침한 뒤 "
     r"다시 시도하세요."),
    (r"A failed commit could not be rolled back \((.*)\); ids (.*) may be half-written\.",
     r"실패한 기억 저장을 되돌리지 못했습니다 (\1). 기억 \2이(가) 일부만 저장되었을 수 "
     r"있습니다. " + _DISK),
    (r"Commit (\S+) is already undone\.", "그 변경은 이미 실행 취소되었습니다. 새로고침하세요."),
    (r"Memory (\S+) was superseded later by (\S+); undo that change first\.",
     r"기억 \1은(는) 나중에 \2(으)로 바뀌었습니다. 그 변경을 먼저 실행 취소하세요."),
    (r"There is no undone commit (.*) to redo\.",
     "다시 할 실행 취소된 변경이 없습니다. 새로고침하세요."),
    (r"The memory commit journal failed: (.*)",
     r"기억 변경 기록에 실패했습니다: \1. " + _DISK),
    (r"The memory key index could not be written: (.*)",
     r"기억 색인을 저장하지 못했습니다: \1. " + _DISK),
    (r"A character name cannot be empty\.", "인물 이름을 입력하세요."),
    (r"A beat summary cannot be empty\.", "비트 요약이 비어 있습니다. 요약을 쓰세요."),
    (r"AIZAC_EMBEDDING changed since this project was written \(written with (.*), now "
     r"(.*)\); its memories cannot be searched with other embeddings\.",
     r"이 프로젝트는 임베딩 \1(으)로 쓰였는데 지금 설정은 \2입니다. 다른 임베딩으로는 기억을 "
     r"찾을 수 없으니 AIZAC_EMBEDDING을 원래대로 되돌리세요."),
    (r"The memory (?:store|write) failed: the Chroma server did not answer \((.*)\)\.",
     r"Chroma 서버가 응답하지 않아 기억 저장소 작업에 실패했습니다 (\1). 서버가 켜져 있는지 "
     r"확인하세요."),
    (r"The memory (?:store|write) failed: (.*)",
     r"기억 저장소 작업에 실패했습니다: \1. " + _DISK),
    (r"This memory was already superseded by (\S+)\.",
     r"이 기억은 이미 \1(으)로 바뀌었습니다. 새로고침한 뒤 최신 기억을 고치세요."),
    (r"The memory store's state record is corrupt: (.*)",
     r"기억 저장소의 상태 기록이 손상되었습니다: \1. 백업에서 프로젝트를 복원하세요."),
    (r"Embedding failed: (.*)",
     r"임베딩에 실패했습니다: \1. AIZAC_EMBEDDING 설정을 확인한 뒤 다시 시도하세요."),
    (r"Could not save the story turn and short-term memory: (.*)",
     r"이야기 진행(턴)과 단기 기억을 저장하지 못했습니다: \1. " + _DISK),
    (r"The model refused the key while reading your question \(HTTP 401/403\)\.",
     "질문을 읽던 모델이 API 키를 거부했습니다 (HTTP 401/403). 모델 탭에서 키를 확인하세요."),
    # a model call that failed (llm.resilient, llm.candidates): role, model, then the cause
    (r"(.+?\.) ?; then the fallback: (.+)", _then_fallback),
    (r"(\w+): (\S+) failed(?: after (\d+) attempts)?: (.*)\.", _model_failed),
    (r"(\w+): (\S+): (the reply was cut at the model's token limit \(finish reason: length\)|"
     r"the reply stream stopped before its end \(no finish reason\)|"
     r"the reply stream broke off before its end \((.*)\))\.", _reply_cut),
    (r"That does not look like an API key \(empty, too long or with spaces\)\.",
     "API 키로 보이지 않습니다 (비었거나, 너무 길거나, 빈칸이 있음). 발급받은 키를 그대로 "
     "붙여 넣으세요. 저장된 것은 없습니다."),
    (r"(.*) takes no key here\.", r"\1에는 키를 저장하지 않습니다. 목록의 제공자를 고르세요."),
    (r"Cannot write (.*) in (.*): (.*)\.", r"\2에 \1을(를) 쓸 수 없습니다: \3. " + _DISK),
    # model and embedding settings (llm/specs, llm/router, llm/embeddings, llm/model_config)
    (r"([A-Z_]+) is empty\.", r"\1이(가) 비어 있습니다. 모델 탭에서 모델을 지정하세요."),
    (r"([A-Z_]+)=(.*) names an unknown provider (.*)\.",
     r"\1=\2: 알 수 없는 제공자 \3입니다. 모델 탭에서 목록에 있는 제공자의 모델을 지정하세요."),
    (r"([A-Z_]+)=(.*) names no model\.",
     r"\1=\2에 모델 이름이 없습니다. '제공자:모델' 형식으로 지정하세요."),
    (r"([A-Z_]+)=(.*) is not (\w+):URL:MODEL\.",
     r"\1=\2은(는) 형식이 맞지 않습니다. '\3:서버 주소:모델 이름' 형식으로 지정하세요."),
    (r"([A-Z_]+) names no model\.",
     r"\1에 모델이 지정되어 있지 않습니다. 모델 탭에서 모델을 지정하세요."),
    (r"(.*) in the data directory cannot be read \((\w+)\)\.",
     r"데이터 폴더의 \1을(를) 읽을 수 없습니다 (\2). 그 파일을 지운 뒤 모델 탭에서 모델과 키를 "
     r"다시 지정하세요."),
    (r"AIZAC_EMBEDDING=(.*): unknown embedding provider (.*)\.",
     r"AIZAC_EMBEDDING=\1: 알 수 없는 임베딩 제공자 \2입니다. 설정을 고친 뒤 다시 시작하세요."),
    (r"AIZAC_EMBEDDING=(.*) names no model; write e\.g\. '(.*):MODEL'\.",
     r"AIZAC_EMBEDDING=\1에 모델 이름이 없습니다. '\2:모델' 형식으로 쓰고 다시 시작하세요."),
    (r"AIZAC_EMBEDDING: sentence-transformers model path (.*) does not exist\.",
     r"AIZAC_EMBEDDING의 sentence-transformers 모델 경로 \1이(가) 없습니다. 경로를 고친 뒤 "
     r"다시 시작하세요."),
    (r"Embedding dimension (\d+) is too small; use at least 8\.",
     r"임베딩 차원 \1은(는) 너무 작습니다. 8 이상으로 설정하세요."),
    (r"AIZAC_EMBEDDING uses OpenAI but no key is set\.",
     "AIZAC_EMBEDDING이 OpenAI 임베딩을 쓰는데 키가 없습니다. OPENAI_API_KEY를 설정하거나 "
     "AIZAC_EMBEDDING을 바꾸세요."),
    (r"AIZAC_EMBEDDING asks for sentence-transformers, which is not installed\.",
     "AIZAC_EMBEDDING이 sentence-transformers를 쓰는데 설치되어 있지 않습니다. 설치하거나 "
     "AIZAC_EMBEDDING을 바꾸세요."),
    (r"AIZAC_EMBEDDING=(.*): the dimension must be an integer\.",
     r"AIZAC_EMBEDDING=\1: 차원은 정수여야 합니다. 설정을 고친 뒤 다시 시작하세요."),
    # a form field over its limit (forms.check_length); the specific ones come first
    (r"(.+) is ([\d,]+) characters long; the limit is ([\d,]+)\.", _too_long),
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
