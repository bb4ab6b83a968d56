"""What a reply says about its own end, and the chunks the routed model passes on (pure).

Providers report how a reply ended in ``response_metadata`` (``finish_reason`` for OpenAI-style
APIs and the local model, ``stop_reason`` for Anthropic). :func:`finish_of` reads either;
:class:`StreamLog` follows a stream (text so far, usage, finish reason) so the routed model can
tell a finished stream from a cut one, and estimate usage when the provider reports none.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from aizac.tokens import count_tokens

# Finish reasons that mean "the token limit cut the reply" (OpenAI / llama.cpp, Anthropic).
LENGTH_REASONS = frozenset({"length", "max_tokens"})


def finish_of(message: BaseMessage) -> str | None:
    """The reply's finish reason (``stop``, ``length``, ``tool_calls``...), if reported."""
    meta = message.response_metadata or {}
    value = meta.get("finish_reason") or meta.get("stop_reason")
    return str(value) if value else None


def as_chunk(part: BaseMessage) -> ChatGenerationChunk:
    """A fresh chunk (no inner run id or chunk position) carrying ``part``'s payload, with its
    finish reason also in ``generation_info``."""
    if isinstance(part, AIMessageChunk):
        message = AIMessageChunk(
            content=part.content,
            additional_kwargs=part.additional_kwargs,
            response_metadata=part.response_metadata,
            usage_metadata=part.usage_metadata,
            tool_call_chunks=part.tool_call_chunks,
        )
    elif isinstance(part, AIMessage):
        message = AIMessageChunk(
            content=part.content,
            response_metadata=part.response_metadata,
            usage_metadata=part.usage_metadata,
        )
    else:
        message = AIMessageChunk(content=part.text)
    finish = finish_of(part)
    return ChatGenerationChunk(
        message=message, generation_info={"finish_reason": finish} if finish else None
    )


def chat_result(reply: BaseMessage) -> ChatResult:
    """A one-reply result whose generation info carries the finish reason."""
    finish = finish_of(reply)
    info = {"finish_reason": finish} if finish else None
    return ChatResult(generations=[ChatGeneration(message=reply, generation_info=info)])


def has_payload(chunk: ChatGenerationChunk) -> bool:
    """Whether ``chunk`` delivers part of the answer (text or a tool-call piece)."""
    message = chunk.message
    calls = isinstance(message, AIMessageChunk) and bool(message.tool_call_chunks)
    return bool(chunk.text) or calls


class StreamLog:
    """What a stream has produced so far."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.has_usage = False
        self.finish: str | None = None
        self.started = False

    def add(self, chunk: ChatGenerationChunk) -> ChatGenerationChunk:
        self.text.append(chunk.text)
        self.started = self.started or has_payload(chunk)
        message = chunk.message
        if isinstance(message, AIMessageChunk) and message.usage_metadata:
            self.has_usage = True
        self.finish = finish_of(message) or self.finish
        return chunk


def estimate_usage(sent: list[BaseMessage], reply_text: str) -> UsageMetadata:
    """Offline token estimate of a call (used when the provider reports no usage)."""
    prompt = count_tokens("\n".join(m.text for m in sent))
    completion = count_tokens(reply_text)
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def final_chunk(label: str, sent: list[BaseMessage], log: StreamLog) -> ChatGenerationChunk:
    """The closing chunk: which model answered, and estimated usage if none was reported."""
    metadata: dict[str, Any] = {"aizac_model": label}
    usage = None
    if not log.has_usage:
        usage = estimate_usage(sent, "".join(log.text))
        metadata["aizac_usage_estimated"] = True
    return ChatGenerationChunk(
        message=AIMessageChunk(content="", response_metadata=metadata, usage_metadata=usage)
    )
