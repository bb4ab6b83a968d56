"""Usage accounting: one record per model call (role, model, tokens, latency, images).

Token counts come from the provider's ``usage_metadata``; where a provider (or a fake model)
reports none, they are estimated offline with :func:`aizac.tokens.count_tokens`
(``estimated=True``). :class:`UsageCallback` is a LangChain callback handler bound to one role;
the router attaches one to every role's model, all writing into one thread-safe
:class:`UsageLog`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from aizac.llm.methods import output_text
from aizac.tokens import count_tokens


@dataclass(frozen=True)
class UsageRecord:
    """One model call."""

    role: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    estimated: bool = False
    ok: bool = True
    images: int = 0
    """Pictures an image model made in this call (the ``image`` role)."""
    cached_tokens: int = 0
    """Prompt tokens the provider's prompt cache served (billed at its discount): OpenAI's
    ``prompt_tokens_details.cached_tokens``, Anthropic's ``cache_read_input_tokens``, as
    LangChain reports both (``usage_metadata.input_token_details.cache_read``)."""


@dataclass(frozen=True)
class UsageTotals:
    """Sums over records."""

    calls: int
    failed: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    images: int = 0
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UsageLog:
    """Thread-safe list of :class:`UsageRecord` with totals."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[UsageRecord] = []

    def add(self, record: UsageRecord) -> None:
        with self._lock:
            self._records.append(record)

    @property
    def records(self) -> list[UsageRecord]:
        """A snapshot copy of the records, oldest first."""
        with self._lock:
            return list(self._records)

    def totals(self, role: str | None = None) -> UsageTotals:
        """Totals over all records, or over one role's."""
        return _totals([r for r in self.records if role is None or r.role == role])

    def by_model(self) -> dict[str, tuple[UsageTotals, tuple[str, ...]]]:
        """Totals per model that answered, with the roles it served (first use first): where
        a split routing (``light-local``) sent the work."""
        out: dict[str, tuple[UsageTotals, tuple[str, ...]]] = {}
        records = self.records
        for model in dict.fromkeys(r.model for r in records):
            mine = [r for r in records if r.model == model]
            roles = tuple(dict.fromkeys(r.role for r in mine))
            out[model] = (_totals(mine), roles)
        return out

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


def _totals(recs: list[UsageRecord]) -> UsageTotals:
    return UsageTotals(
        calls=len(recs),
        failed=sum(not r.ok for r in recs),
        prompt_tokens=sum(r.prompt_tokens for r in recs),
        completion_tokens=sum(r.completion_tokens for r in recs),
        latency_s=sum(r.latency_s for r in recs),
        images=sum(r.images for r in recs),
        cached_tokens=sum(r.cached_tokens for r in recs),
    )


def _prompt_text(messages: list[list[BaseMessage]]) -> str:
    return "\n".join(m.text for batch in messages for m in batch)


class UsageCallback(BaseCallbackHandler):
    """Records every chat-model call of one role into a :class:`UsageLog`."""

    run_inline = True  # record in the calling thread, also for async runs

    def __init__(self, log: UsageLog, role: str, default_model: str) -> None:
        self.log = log
        self.role = role
        self.default_model = default_model
        self._lock = threading.Lock()
        self._started: dict[UUID, tuple[float, int]] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        with self._lock:
            self._started[run_id] = (time.perf_counter(), count_tokens(_prompt_text(messages)))

    def _pop(self, run_id: UUID) -> tuple[float, int]:
        with self._lock:
            started, prompt_estimate = self._started.pop(run_id, (time.perf_counter(), 0))
        return time.perf_counter() - started, prompt_estimate

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        latency, prompt_estimate = self._pop(run_id)
        self.log.add(self._record(response, prompt_estimate, latency, ok=True))

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A failed call; a stream that failed after it began (cut at the token limit, its
        connection dropped) is counted with what it wrote, which LangChain hands over as the
        ``response`` of the chunks so far (the embedded model's prose ends at its limit and is
        kept: it counted 0 completion tokens)."""
        latency, prompt_estimate = self._pop(run_id)
        response = kwargs.get("response")
        if not isinstance(response, LLMResult):
            response = LLMResult(generations=[])
        self.log.add(self._record(response, prompt_estimate, latency, ok=False))

    def _record(self, response: LLMResult, prompt_estimate: int, latency: float, *,
                ok: bool) -> UsageRecord:
        model = self.default_model
        prompt, completion, estimated, cached = prompt_estimate, 0, True, 0
        gens = response.generations[0] if response.generations else []
        if gens:
            gen = gens[0]
            completion = count_tokens(gen.text)
            if isinstance(gen, ChatGeneration):
                msg = gen.message
                model = str(msg.response_metadata.get("aizac_model") or model)
                completion = count_tokens(output_text(msg))
                usage = getattr(msg, "usage_metadata", None)
                if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
                    prompt = int(usage.get("input_tokens", 0))
                    completion = int(usage.get("output_tokens", 0))
                    estimated = bool(msg.response_metadata.get("aizac_usage_estimated"))
                    details = usage.get("input_token_details") or {}
                    cached = int(details.get("cache_read") or 0)
        return UsageRecord(self.role, model, prompt, completion, latency, estimated, ok,
                           cached_tokens=cached)
