"""The planner's context at a late unit (issue 43, item 3): at episode 20, "plan this episode"
and the autopilot's planning were shown only the last scene's cast (a bystander), without the
protagonist or any relation, and 3 of 25 open threads (the newest) while the continuity check
flagged 10 as overdue. The planner of an episode now sees the protagonist and the episode's cast
with their current states, the relations among them, and the overdue threads in the order the
continuity check lists them (one ranking, :func:`aizac.continuity.ledger.overdue_threads`).

The story is seeded to episode 19 through the store and the memory API (no model calls), then
episode 20 is planned with LangChain fake chat models and the hashing embedding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aizac.application.service import ApplicationService
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.continuity import check_draft, open_books
from aizac.continuity.canon import Canon
from aizac.writer.schemas import NovelBeat
from tests.autopilot.fakes import JudgingModel, make_studio

LAST_EPISODE = 19
BEATS = 2
STATES = {  # name -> (condition, whereabouts): each one's current state at episode 19
    "Aren": ("Aren's left arm is broken.", "Aren hides in the salt mines."),
    "Mira": ("Mira is exhausted after the ward.", "Mira guards the north gate."),
    "Duke Veil": ("Duke Veil is poisoned but hides it.", "Duke Veil holds the capital."),
    "Corin": ("Corin is blind in one eye.", "Corin rides with the scouts."),
    "Ilse": ("Ilse is feverish.", "Ilse waits at the chapel."),
}
RELATIONS = [  # the current relation of each pair (older versions are superseded)
    ("Aren", "Mira", "Aren and Mira are sworn to each other."),
    ("Aren", "Duke Veil", "Aren hunts Duke Veil for the betrayal."),
    ("Mira", "Corin", "Mira distrusts Corin since the ambush."),
    ("Corin", "Ilse", "Corin owes Ilse his life."),
]
OVERDUE = 10  # threads planted in episodes 1..9: due by 11..19, overdue at 20
OPEN = 25
PLANTED = {  # (episode, beat) -> threads planted there: 10 by episode 9, 25 by episode 19
    **{(e, 1): 1 for e in range(1, LAST_EPISODE + 1)}, (9, 2): 1,
    **{(e, 2): 1 for e in range(10, 15)},
}


def _thread(n: int) -> str:
    """The text of the ``n``-th thread planted (the 4th names Ilse, who is not on stage in
    episode 19: a thread the check holds the episode to brings its character)."""
    return "Ilse keeps sealed letter 4 unopened." if n == 4 else \
        f"Sealed letter {n} is still unopened."


def _beat(episode: int, index: int, cast: list[str]) -> NovelBeat:
    return NovelBeat(episode=episode, index=index, location="The old road", time="dusk",
                     characters=cast, events=[f"Scene {episode}-{index} happens."],
                     dialogue=[], emotions=[], conflicts=[], sets_up=[], pays_off=[])


def _cast_of(episode: int, index: int) -> list[str]:
    if (episode, index) == (LAST_EPISODE, BEATS):
        return ["Passer-by"]  # the last scene: a bystander alone
    if episode == LAST_EPISODE:
        return ["Mira", "Corin"]
    return ["Aren", "Ilse"] if index == 1 else ["Mira", "Duke Veil"]


def _seeded(tmp_path: Path, model: JudgingModel, name: str) -> tuple[Any, Any]:
    """A studio and a project whose story is accepted up to episode 19 (2 beats each), its
    memory seeded directly: states that change along the way, relations that change, and 25
    open threads (one at a time, the oldest first)."""
    studio = make_studio(tmp_path / "data", model, beats_per_episode=BEATS,
                         combined_extraction=True)
    agent = studio.create(name, "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    memory = agent.memory
    memory.remember("Passer-by — a traveller. Sells salt.", "Character",
                    character_name="Passer-by", aspect="profile", chapter=1, beat=1)
    for who in ("Corin", "Ilse"):
        memory.remember(f"{who} — a knight of the order.", "Character", character_name=who,
                        aspect="profile", chapter=1, beat=1)
    threads = 0
    for episode in range(1, LAST_EPISODE + 1):
        for index in range(1, BEATS + 1):
            record = agent.store.add_draft(_beat(episode, index, _cast_of(episode, index)))
            agent.store.set_status(record.id, "accepted", summary=f"Scene {episode}-{index}.")
            where = {"chapter": episode, "beat": index}
            if episode in (3, 12):  # earlier states, superseded by the current ones later
                for who in STATES:
                    memory.remember(f"{who} is unharmed ({episode}).", "Character",
                                    character_name=who, aspect="condition", **where)
            if episode == 15 and index == 1:
                for a, b, _ in RELATIONS:
                    memory.remember(f"{a} and {b} are strangers.", "CharacterRelation",
                                    character1=a, character2=b, **where)
            if episode == 18 and index == 1:
                for who, (condition, whereabouts) in STATES.items():
                    memory.remember(condition, "Character", character_name=who,
                                    aspect="condition", **where)
                    memory.remember(whereabouts, "Character", character_name=who,
                                    aspect="whereabouts", **where)
                for a, b, text in RELATIONS:
                    memory.remember(text, "CharacterRelation", character1=a, character2=b,
                                    **where)
            for _ in range(PLANTED.get((episode, index), 0)):
                threads += 1
                memory.remember(_thread(threads), "Story",
                                keyword=f"letter {threads}", foreshadow=True, **where)
            memory.finish_beat(f"Scene {episode}-{index}.")
    assert threads == OPEN
    assert agent.next_position() == (LAST_EPISODE + 1, 1)
    return studio, agent


def _checked_order(agent: Any) -> list[str]:
    """The overdue threads' texts as the continuity check lists them at episode 20."""
    ledger = open_books(agent.store).ledger
    ledger.sync(agent.memory, LAST_EPISODE + 1)
    report = check_draft(Canon(), episode=LAST_EPISODE + 1, beats=[], prose={},
                         threads=ledger.open_threads(), language="en")
    ids = [f.memory_id for f in report.findings if f.kind == "foreshadowing_overdue"]
    return [agent.memory.get(i).text for i in ids]


def _assert_sees_the_episode(prompt: str, overdue: list[str]) -> None:
    for who, (condition, whereabouts) in STATES.items():
        assert condition in prompt, who
        assert whereabouts in prompt, who
    for _a, _b, text in RELATIONS:
        assert text in prompt
    assert "strangers" not in prompt and "unharmed" not in prompt  # superseded: not shown
    assert len(overdue) == OVERDUE
    block = prompt[prompt.index("## Overdue threads"):]
    where = [block.find(text) for text in overdue]
    assert -1 not in where, [t for t, w in zip(overdue, where, strict=True) if w < 0]
    assert where == sorted(where)  # the check's order
    later = [_thread(n) for n in range(OVERDUE + 1, OPEN + 1)]
    shown = [t for t in later if t in prompt]
    assert len(shown) <= 3  # not overdue: only the pack's few open threads


def _episode_prompts(model: JudgingModel) -> list[str]:
    return [p for p, c in zip(model.prompts, model.calls, strict=True) if c == "EpisodeDesign"]


def test_plan_this_episode_at_episode_20_sees_the_cast_relations_and_overdue_threads(
    tmp_path: Path,
) -> None:
    model = JudgingModel()
    studio, agent = _seeded(tmp_path, model, "late")
    overdue = _checked_order(agent)
    service = ApplicationService(studio, export_dir=tmp_path / "exports")
    drafts = service.plan_episode("late")
    assert [(d.episode, d.index) for d in drafts] == [(20, 1), (20, 2)]
    (prompt,) = _episode_prompts(model)
    _assert_sees_the_episode(prompt, overdue)


def test_the_autopilots_planning_at_episode_20_sees_the_same(tmp_path: Path) -> None:
    model = JudgingModel()
    _studio, agent = _seeded(tmp_path, model, "late")
    overdue = _checked_order(agent)
    autopilot = Autopilot(agent)
    try:
        result = autopilot.start(Options(episodes=1, every=0))
    finally:
        autopilot.close()
    prompts = _episode_prompts(model)
    assert prompts, result.message
    _assert_sees_the_episode(prompts[0], overdue)
