"""A prose stream cut at the token limit: the embedded small model keeps its finished sentences
(it writes until its limit), any other model's cut saves nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk

from aizac.errors import IncompleteReplyError
from aizac.llm.profiles import attach
from aizac.llm.registry import row
from aizac.writer.output import whole_sentences
from tests.fakes import RoutedFakeChatModel, fake_models

from .conftest import AgentFactory

CUT = 'The gate hummed. Kang Jun stepped in. "Again," he said. Mira turned to'


class _CutAtTheLimit(RoutedFakeChatModel):
    """Streams its reply, then ends the stream as llama.cpp does at max_tokens."""

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from super()._stream(messages, stop, run_manager, **kwargs)
        yield ChatGenerationChunk(
            message=AIMessageChunk(content="", response_metadata={"finish_reason": "length"})
        )


def _agent(make_agent: AgentFactory, prose: str, *, small: bool) -> Any:
    models = fake_models()
    writer = _CutAtTheLimit(replies={"prose": prose})
    if small:
        local = row("local")
        assert local is not None
        attach(writer, local.profile)
    models["writer"] = writer
    agent, _, _ = make_agent(models=models)
    agent.plan()
    draft = agent.next_beat()
    agent.accept(draft.id)
    return agent, draft.id


def test_the_embedded_writer_cut_at_its_limit_keeps_its_finished_sentences(
    make_agent: AgentFactory,
) -> None:
    agent, beat_id = _agent(make_agent, CUT, small=True)
    "".join(agent.write_prose(beat_id))
    kept = 'The gate hummed. Kang Jun stepped in. "Again," he said.'
    assert agent.store.beat(beat_id).prose == kept


def test_the_embedded_writer_cut_before_any_sentence_ended_saves_nothing(
    make_agent: AgentFactory,
) -> None:
    agent, beat_id = _agent(make_agent, "The gate hummed and Kang Jun", small=True)
    with pytest.raises(IncompleteReplyError, match="token limit"):
        "".join(agent.write_prose(beat_id))
    assert agent.store.beat(beat_id).prose is None


def test_another_writer_cut_at_its_limit_saves_nothing(make_agent: AgentFactory) -> None:
    agent, beat_id = _agent(make_agent, CUT, small=False)
    with pytest.raises(IncompleteReplyError, match="token limit"):
        "".join(agent.write_prose(beat_id))
    assert agent.store.beat(beat_id).prose is None


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("그는 달렸다. 그녀는", "그는 달렸다."),
        ("他跑了。她", "他跑了。"),
        ("他说：“走！”她", "他说：“走！”"),
        ('She said "Go." and', 'She said "Go."'),
        ("3.5 km away. And", "3.5 km away."),
        ("no sentence ended", ""),
    ],
)
def test_whole_sentences_end_where_a_sentence_ends(text: str, kept: str) -> None:
    assert whole_sentences(text) == kept
