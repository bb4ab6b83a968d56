from __future__ import annotations

from aizac.memory import WriterMemory
from aizac.retrieval.matrix import relation_matrix

Story = tuple[WriterMemory, dict[str, str]]


def test_matrix_gives_the_current_relation_of_every_pair(story: Story) -> None:
    mem, ids = story
    matrix = relation_matrix(mem, ["이영민", "Kang Mira", "서준", "kang mira"])
    assert matrix.names == ("Lee Youngmin", "Kang Mira", "Seo Jun")  # aliases merged
    assert len(matrix.cells) == 3
    mira_youngmin = matrix.get("Lee Youngmin", "Kang Mira")
    assert mira_youngmin is not None and mira_youngmin.memory_id == ids["rel_new"]
    assert matrix.get("Kang Mira", "Lee Youngmin") == mira_youngmin  # either order
    assert matrix.get("Seo Jun", "Kang Mira").memory_id == ids["rel_mj"]  # type: ignore[union-attr]
    assert matrix.get("Seo Jun", "Lee Youngmin").text is None  # type: ignore[union-attr]
    assert matrix.get("Seo Jun", "Seo Jun") is None


def test_matrix_renders_known_pairs_and_optionally_unknown(story: Story) -> None:
    mem, _ = story
    matrix = relation_matrix(mem, ["Kang Mira", "Lee Youngmin", "Seo Jun"])
    text = matrix.render()
    assert "bitter rivals" in text and "old friends" not in text
    assert text.count("\n") == 1
    assert "(no known relation)" in matrix.render(include_unknown=True)


def test_matrix_follows_a_later_change(story: Story) -> None:
    mem, ids = story
    new = mem.supersede(ids["rel_mj"], "Kang Mira and Seo Jun are enemies.", chapter=9)
    cell = relation_matrix(mem, ["Seo Jun", "Kang Mira"]).get("Kang Mira", "Seo Jun")
    assert cell is not None and cell.memory_id == new and cell.chapter == 9
