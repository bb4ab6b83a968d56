"""Style: the assistant gradually writes like this writer.

* :mod:`~aizac.style.store` — style evidence: the model's draft and the writer's text of every
  beat (per project, optionally across the writer's projects);
* :mod:`~aizac.style.metrics` / :mod:`~aizac.style.profile` — a deterministic profile from the
  writer's own text (sentence and paragraph length, dialogue share, endings and speech levels,
  punctuation, onomatopoeia, line-break rhythm, words their edits delete and add);
* :mod:`~aizac.style.fewshot` / :mod:`~aizac.style.prompt` — the profile and the 2-3 passages
  most like the scene, in the prose prompt within its token budget;
* :mod:`~aizac.style.drift` — each episode's drafted prose against the profile;
* :mod:`~aizac.style.chart` — the panel's picture of them.
"""

from aizac.style.drift import DriftReport, DriftRow, drift
from aizac.style.metrics import StyleMetrics, count
from aizac.style.profile import Passage, StyleProfile, build_profile
from aizac.style.prompt import StyleBlock, style_block
from aizac.style.store import StyleBook
from aizac.style.writer_style import WriterStyle

__all__ = [
    "DriftReport",
    "DriftRow",
    "Passage",
    "StyleBlock",
    "StyleBook",
    "StyleMetrics",
    "StyleProfile",
    "WriterStyle",
    "build_profile",
    "count",
    "drift",
    "style_block",
]
