"""Sampling of the local model: free text and schema-constrained output differ (pure)."""

from __future__ import annotations

from aizac.llm.providers.local import ChatLocalLlama
from aizac.settings import Settings


def _model(**fields: float) -> ChatLocalLlama:
    return ChatLocalLlama(model_path="unused.gguf", **fields)  # type: ignore[arg-type]


def test_free_text_is_sampled_with_a_repeat_penalty() -> None:
    params = _model(temperature=0.8, repeat_penalty=1.2, presence_penalty=0.3)._params(None, {})
    assert params["temperature"] == 0.8
    assert params["repeat_penalty"] == 1.2
    assert params["presence_penalty"] == 0.3
    assert "response_format" not in params


def test_structured_output_is_cool_and_unpenalised() -> None:
    fmt = {"type": "json_object", "schema": {"type": "object"}}
    params = _model(temperature=0.8, repeat_penalty=1.2, presence_penalty=0.3)._params(
        None, {"response_format": fmt}
    )
    assert params["response_format"] == fmt
    assert params["temperature"] == 0.2
    assert params["repeat_penalty"] == 1.0
    assert params["presence_penalty"] == 0.0


def test_call_kwargs_override_the_defaults() -> None:
    params = _model()._params(["\n\n"], {"temperature": 0.0, "max_tokens": 7})
    assert params["temperature"] == 0.0
    assert params["max_tokens"] == 7
    assert params["stop"] == ["\n\n"]


def test_settings_defaults_loop_less_than_greedy_decoding() -> None:
    s = Settings()
    assert s.local_temperature > s.local_json_temperature
    assert s.local_repeat_penalty > 1.0 == s.local_json_repeat_penalty


def test_constrained_decoding_asks_for_json_without_the_schema_dump() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage

    from aizac.llm.methods import CONSTRAINED_NOTE, apply_plan, plan_structured
    from aizac.llm.providers.local import ChatLocalLlama

    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 9}}}
    model = ChatLocalLlama(model_path="unused.gguf")  # loads nothing until called
    plan = plan_structured(model, schema)
    assert plan.method == "constrained"
    assert plan.kwargs["response_format"] == {"type": "json_object", "schema": schema}
    messages = [SystemMessage(content="You plan."), HumanMessage(content="Plan it.")]
    prompt = apply_plan(messages, plan)
    assert prompt[0].text == "You plan.\n\n" + CONSTRAINED_NOTE
    assert "maxLength" not in prompt[0].text
    # A model without a grammar still sees the whole schema.
    assert "maxLength" in (plan_structured(model, schema, method="prompt").system_note or "")
