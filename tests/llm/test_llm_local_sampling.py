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


def test_the_schema_dump_is_dropped_under_constrained_decoding() -> None:
    from aizac.llm.methods import schema_instruction
    from aizac.llm.providers.local import SHORT_JSON_NOTE, drop_schema_dump

    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 9}}}
    prompt = [
        {"role": "system", "content": "You plan.\n\n" + schema_instruction(schema)},
        {"role": "user", "content": "Plan it."},
    ]
    out = drop_schema_dump(prompt, {"type": "json_object", "schema": schema})
    assert out[0]["content"] == "You plan.\n\n" + SHORT_JSON_NOTE
    assert "maxLength" not in out[0]["content"] and out[1] == prompt[1]
    assert drop_schema_dump(prompt, None) == prompt  # free text is left alone
