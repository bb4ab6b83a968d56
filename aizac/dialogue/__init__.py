"""Dialogue: every voice kept straight in scenes with many speakers.

* :mod:`~aizac.dialogue.speech` — speech levels (Korean endings -요/-습니다 vs -어/-야; markers in
  English and Chinese) and forms of address (형, 선배, 회장님, a bare name) in a line (pure;
  word lists in ``speech.toml``).
* :mod:`~aizac.dialogue.cards` — voice cards (per character: register, tics, catchphrases,
  dialect) and pair voices (per direction: speech level and form of address), memory facts that
  are superseded like relations.
* :mod:`~aizac.dialogue.checks` — the deterministic checks (speaker absent or dead, speech
  level, form of address, a line given to the wrong speaker, another's catchphrase), each
  finding citing the memory it rests on; :func:`check_dialogue` runs them against the memory.
* :mod:`~aizac.dialogue.plan` — the controller: a beat with three or more speakers gets a
  dialogue plan (turn order, who answers whom, what each wants) before prose.
* :mod:`~aizac.dialogue.memory` — voice facts staged with a beat's candidates, or set by the
  writer.
"""

from aizac.dialogue.canon import VoiceCanon, read_voices
from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.checks import KINDS, VOICE_FINDINGS, check_lines
from aizac.dialogue.episode import check_dialogue, merge_reports
from aizac.dialogue.plan import DialoguePlan, needs_plan

__all__ = [
    "KINDS",
    "VOICE_FINDINGS",
    "DialoguePlan",
    "PairVoice",
    "VoiceCanon",
    "VoiceCard",
    "check_dialogue",
    "check_lines",
    "merge_reports",
    "needs_plan",
    "read_voices",
]
