"""Finding messages in the project's language (pure templates)."""

from __future__ import annotations

_TEMPLATES: dict[str, dict[str, str]] = {
    "ko": {
        "dead_speaks": "{name}{eun} 이미 죽었습니다({fact}). 그런데 {beat}번 비트에서 말합니다.",
        "dead_acts": "{name}{eun} 이미 죽었습니다({fact}). 그런데 {beat}번 비트에 등장합니다.",
        "dead_revived": "{name}{eun} 이미 죽었습니다({fact}). 원고가 되살립니다: {claim}",
        "absent": "{name}{eun} 지금 그 자리에 있을 수 없습니다({fact}). 그런데 {beat}번 비트에서 "
                  "{place}에 있습니다.",
        "wrong_location": "{name}의 현재 위치는 '{fact}'인데 {beat}번 비트의 장소는 {place}입니다"
                          " (이동이 원고에 없습니다).",
        "superseded_relation": "{pair}의 관계는 이제 '{current}'입니다. 원고는 지난 관계 "
                               "'{old}'를 현재처럼 씁니다.",
        "pinned_changed": "고정된 사실 '{fact}'{eul} 원고가 바꿉니다: {claim}",
        "pinned_negated": "고정된 사실 '{fact}'{eul} 원고가 부정합니다: {claim}",
        "model_failed": "모델 점검을 건너뛰었습니다(올바른 답을 받지 못함): {error}",
        "rule_changed": "세계관 규칙 '{fact}'{eul} 원고가 바꿉니다: {claim}",
        "rule_negated": "원고가 세계관 규칙 '{fact}'{eul} 어깁니다: {claim}",
        "secret_leak": ("{name}{eun} 비밀 '{secret}'{eul_secret} 알 수 없는데 "
                        "그것을 알고 행동합니다."),
        "overdue": "복선 '{thread}'{iga} {due}화까지 회수될 예정이었는데 아직 열려 있습니다"
                   " ({planted}화에 심음).",
    },
    "en": {
        "dead_speaks": "{name} is dead ({fact}), yet speaks in beat {beat}.",
        "dead_acts": "{name} is dead ({fact}), yet appears in beat {beat}.",
        "dead_revived": "{name} is dead ({fact}); the draft brings them back: {claim}",
        "absent": "{name} is away ({fact}), yet is at {place} in beat {beat}.",
        "wrong_location": "{name} is at '{fact}', but beat {beat} takes place at {place} "
                          "(the draft never moves them).",
        "superseded_relation": "{pair} are now '{current}'; the draft uses the old relation "
                               "'{old}' as current.",
        "pinned_changed": "The draft changes the pinned fact '{fact}': {claim}",
        "pinned_negated": "The draft contradicts the pinned fact '{fact}': {claim}",
        "model_failed": "The model check was skipped (no valid answer): {error}",
        "rule_changed": "The draft changes the world rule '{fact}': {claim}",
        "rule_negated": "The draft breaks the world rule '{fact}': {claim}",
        "secret_leak": "{name} cannot know the secret '{secret}', yet acts on it.",
        "overdue": "The foreshadowing '{thread}' (planted in episode {planted}) was due by "
                   "episode {due} and is still open.",
    },
    "zh": {
        "dead_speaks": "{name}已经死了（{fact}），却在第 {beat} 个节拍里说话。",
        "dead_acts": "{name}已经死了（{fact}），却在第 {beat} 个节拍里出场。",
        "dead_revived": "{name}已经死了（{fact}），草稿却让其复活：{claim}",
        "absent": "{name}现在不可能在场（{fact}），却在第 {beat} 个节拍里出现在{place}。",
        "wrong_location": "{name}目前在“{fact}”，第 {beat} 个节拍却在{place}（草稿没有交代移动）。",
        "superseded_relation": "{pair}现在的关系是“{current}”，草稿却把旧关系“{old}”当作现在。",
        "pinned_changed": "草稿改变了固定设定“{fact}”：{claim}",
        "pinned_negated": "草稿否定了固定设定“{fact}”：{claim}",
        "model_failed": "已跳过模型检查（没有得到有效回答）：{error}",
        "rule_changed": "草稿改变了世界规则“{fact}”：{claim}",
        "rule_negated": "草稿违背了世界规则“{fact}”：{claim}",
        "secret_leak": "{name}不可能知道秘密“{secret}”，却据此行动。",
        "overdue": "伏笔“{thread}”（第 {planted} 回埋下）应在第 {due} 回前回收，仍未回收。",
    },
}


def _final_consonant(word: str) -> bool:
    """Whether ``word`` ends in a Hangul syllable with a final consonant (받침)."""
    last = word.rstrip(" '\"”’.")[-1:] or " "
    return "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 != 0


def _particles(values: dict[str, object]) -> dict[str, object]:
    """Korean particles that agree with the words before them (은/는, 을/를, 이/가)."""
    name, fact = str(values.get("name", "")), str(values.get("fact", ""))
    return {
        "eun": "은" if _final_consonant(name) else "는",
        "eul": "을" if _final_consonant(fact) else "를",
        "eul_secret": "을" if _final_consonant(str(values.get("secret", ""))) else "를",
        "iga": "이" if _final_consonant(str(values.get("thread", ""))) else "가",
        **values,
    }


def message(key: str, language: str, **values: object) -> str:
    """The message ``key`` in ``language`` (English for an unknown language)."""
    table = _TEMPLATES.get(language, _TEMPLATES["en"])
    return table[key].format(**_particles(values))


__all__ = ["message"]
