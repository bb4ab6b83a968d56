"""The autopilot's draft node ends a prose stream by the same rule as the beat editor's prose
(``writer.output.prose_stop``): a repeated paragraph is dropped, prose far past its length stops."""

from __future__ import annotations

from aizac.autopilot.drafting import _collect
from aizac.writer.output import prose_stop


class _Stream:
    def __init__(self, chunks: list[str]) -> None:
        self.chunks, self.closed, self.read = chunks, False, 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        for chunk in self.chunks:
            self.read += 1
            yield chunk

    def close(self) -> None:
        self.closed = True


def test_prose_stop_goes_on_for_plain_prose_and_drops_a_repeated_paragraph() -> None:
    first = "Mira opened the iron gate of Eastwall at dawn.\n"
    assert prose_stop(first, first, prose_words=300) is None
    text = first + "The wind rose over Eastwall.\n" + first
    assert prose_stop(text, first, prose_words=300) == first + "The wind rose over Eastwall.\n"


def test_the_draft_node_stops_at_a_repeated_paragraph_and_closes_the_stream() -> None:
    para = ["Mira opened the iron gate of Eastwall at dawn.\n", "The wind rose over Eastwall.\n"]
    stream = _Stream([*para, para[0], "never read\n"])
    text = _collect(stream, prose_words=300)
    assert text == "".join(para).strip()
    assert stream.closed and stream.read == 3


def test_the_draft_node_stops_far_past_the_length() -> None:
    paragraph = "word " * 40 + "\n"
    chunks = [f"{i} " + paragraph for i in range(50)]
    stream = _Stream(chunks)
    text = _collect(stream, prose_words=20)
    assert stream.read < 50 and text.endswith(paragraph.strip())
