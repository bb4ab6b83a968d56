"""The rolling short-term buffer."""

from __future__ import annotations

import pytest

from aizac.errors import InvalidInputError
from aizac.memory import ShortTermMemory, WriterMemory
from aizac.tokens import count_tokens


def test_keeps_the_most_recent_within_budget() -> None:
    st = ShortTermMemory(max_tokens=20)
    for i in range(10):
        st.add(f"Beat {i}: something happens to somebody.")
    assert st.items()[-1].startswith("Beat 9")
    assert st.tokens() <= 20 and count_tokens(st.text()) <= 20
    assert len(st) < 10 and st.items()[0] != "Beat 0: something happens to somebody."


def test_an_oversized_summary_is_cut_to_fit() -> None:
    st = ShortTermMemory(max_tokens=5)
    st.add("첫 번째 장면에서 미라는 항구에 도착했다.")
    assert len(st) == 1 and st.tokens() <= 5


def test_pop_clear_and_errors() -> None:
    st = ShortTermMemory(max_tokens=50, items=["a b", "c d"])
    assert st.pop() == "c d" and st.items() == ["a b"]
    st.clear()
    assert st.pop() is None and st.text() == ""
    with pytest.raises(InvalidInputError):
        st.add("   ")
    with pytest.raises(InvalidInputError):
        ShortTermMemory(max_tokens=0)


def test_memory_buffer_uses_the_settings_budget(mem: WriterMemory) -> None:
    assert mem.short_term.max_tokens == mem.settings.short_term_tokens


def test_a_failed_save_leaves_the_buffer_unchanged() -> None:
    st = ShortTermMemory(max_tokens=50, items=["kept"])

    def broken() -> None:
        raise OSError("disk full")

    st.on_change = broken
    with pytest.raises(OSError):
        st.add("lost")
    with pytest.raises(OSError):
        st.clear()
    assert st.items() == ["kept"]
