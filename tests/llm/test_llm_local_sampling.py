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
    # the small model's wire schema: tighter bounds (see the next test)
    tight = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8}}}
    assert plan.kwargs["response_format"] == {"type": "json_object", "schema": tight}
    messages = [SystemMessage(content="You plan."), HumanMessage(content="Plan it.")]
    prompt = apply_plan(messages, plan)
    assert prompt[0].text == "You plan.\n\n" + CONSTRAINED_NOTE
    assert "maxLength" not in prompt[0].text
    # A model without a grammar still sees the whole schema.
    assert "maxLength" in (plan_structured(model, schema, method="prompt").system_note or "")


def test_the_small_local_model_gets_tighter_bounds_and_others_the_full_ones() -> None:
    """The small embedded model fills every bound it is given (and a Hangul character costs it
    two or three tokens): its wire schema is tighter; a real model's is not."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from aizac.llm.methods import plan_structured
    from aizac.llm.profiles import ModelProfile, attach
    from aizac.writer.schemas import NovelPlot

    schema = NovelPlot.model_json_schema()
    small = attach(FakeListChatModel(responses=["{}"]), ModelProfile("local", small_local=True))
    real = FakeListChatModel(responses=["{}"])
    tight = plan_structured(small, schema, "constrained").kwargs["response_format"]["schema"]
    full = plan_structured(real, schema, "constrained").kwargs["response_format"]["schema"]
    assert full["properties"]["logline"]["maxLength"] == 240
    assert tight["properties"]["logline"]["maxLength"] == 80
    assert full["properties"]["characters"]["maxItems"] == 5
    assert tight["properties"]["characters"]["maxItems"] == 3
    acts = tight["properties"]["acts"]
    assert acts["minItems"] == acts["maxItems"] == 5  # never below the minimum
    name = tight["$defs"]["PlotCharacter"]["properties"]["name"]
    assert name["minLength"] == 1 and name["maxLength"] >= 8
