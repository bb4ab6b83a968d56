"""Local model throughput: SmolLM2-135M-Instruct via llama-cpp, free text vs constrained JSON.

Runs each case a few times in one process (model loaded once, load time reported separately)
and prints prompt tokens, completion tokens and completion tokens/s. Usage::

    python bench/local_model.py [--runs 3] [--max-tokens 128]
"""

from __future__ import annotations

import argparse
import time
from typing import Annotated, Any

from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from aizac.llm.methods import apply_plan, plan_structured
from aizac.llm.providers.local import ChatLocalLlama, resolve_model_path
from aizac.settings import Settings

Short = Annotated[str, StringConstraints(max_length=40)]


class Character(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Short
    role: Short
    goal: Annotated[str, StringConstraints(max_length=120)]
    traits: list[Short] = Field(max_length=3)


PROMPT = "Invent the main character of a fantasy web novel: name, role, goal and traits."


def run_case(
    model: ChatLocalLlama, messages: list[BaseMessage], kwargs: dict[str, Any], runs: int
) -> tuple[int, int, float]:
    prompt = completion = 0
    seconds = 0.0
    for _ in range(runs):
        started = time.perf_counter()
        reply = model.invoke(messages, **kwargs)
        seconds += time.perf_counter() - started
        usage = reply.usage_metadata or {"input_tokens": 0, "output_tokens": 0}
        prompt += usage["input_tokens"]
        completion += usage["output_tokens"]
    return prompt // runs, completion // runs, completion / seconds if seconds else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    args = parser.parse_args()

    settings = Settings()
    path = resolve_model_path(settings)
    model = ChatLocalLlama(model_path=str(path), n_ctx=settings.local_context, temperature=0.7)
    started = time.perf_counter()
    model.invoke("Hi", max_tokens=1)  # loads the model
    load = time.perf_counter() - started

    free: list[BaseMessage] = [HumanMessage(content=PROMPT)]
    plan = plan_structured(model, Character.model_json_schema())
    constrained = apply_plan(free, plan)
    cases: list[tuple[str, list[BaseMessage], dict[str, Any]]] = [
        ("free text", free, {"max_tokens": args.max_tokens}),
        ("constrained JSON", constrained, {"max_tokens": args.max_tokens, **plan.kwargs}),
        ("JSON prompt, unconstrained", constrained, {"max_tokens": args.max_tokens}),
    ]
    print(f"model: {path.name}  load+first token: {load:.2f} s  runs per case: {args.runs}")
    print(f"{'case':<28}{'prompt tok':>11}{'completion tok':>16}{'tokens/s':>10}")
    for name, messages, kwargs in cases:
        prompt, completion, rate = run_case(model, messages, kwargs, args.runs)
        print(f"{name:<28}{prompt:>11}{completion:>16}{rate:>10.1f}")


if __name__ == "__main__":
    main()
