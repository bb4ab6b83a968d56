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


def test_structured_output_is_cool_and_has_its_own_penalty() -> None:
    fmt = {"type": "json_object", "schema": {"type": "object"}}
    params = _model(temperature=0.8, repeat_penalty=1.2, presence_penalty=0.3)._params(
        None, {"response_format": fmt}
    )
    assert params["response_format"] == fmt
    assert params["temperature"] == 0.2
    assert params["repeat_penalty"] == 1.15  # json_repeat_penalty, not the prose one
    assert params["presence_penalty"] == 0.0


def test_call_kwargs_override_the_defaults() -> None:
    params = _model()._params(["\n\n"], {"temperature": 0.0, "max_tokens": 7})
    assert params["temperature"] == 0.0
    assert params["max_tokens"] == 7
    assert params["stop"] == ["\n\n"]


def test_settings_defaults_loop_less_than_greedy_decoding() -> None:
    """Constrained output is penalised for repeats too (the grammar forces its syntax): without
    a penalty the embedded model filled Korean plots with one copied word."""
    s = Settings()
    assert s.local_temperature > s.local_json_temperature
    assert s.local_repeat_penalty > 1.0 and s.local_json_repeat_penalty > 1.0
    fmt = {"type": "json_object", "schema": {"type": "object"}}
    assert _model()._params(None, {"response_format": fmt})["repeat_penalty"] > 1.0


def test_constrained_decoding_asks_for_json_without_the_schema_dump() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage

    from aizac.llm.grammar import language_patterns
    from aizac.llm.methods import CONSTRAINED_NOTE, apply_plan, plan_structured
    from aizac.llm.providers.local import ChatLocalLlama

    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 9}}}
    model = ChatLocalLlama(model_path="unused.gguf")  # loads nothing until called
    plan = plan_structured(model, schema)
    assert plan.method == "constrained"
    # the small model's wire schema: tighter bounds (see the next test) and its language's
    # pattern for text (aizac.llm.grammar; tests/llm/test_llm_grammar.py)
    text = language_patterns("en").text_pattern(0, 8)
    tight = {"type": "object",
             "properties": {"name": {"type": "string", "maxLength": 8, "pattern": text}}}
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


def _most_chars(node: object, defs: dict[str, object]) -> int:
    """The most characters of string content a reply following ``node`` can hold (pure)."""
    if not isinstance(node, dict):
        return 0
    if "$ref" in node:
        return _most_chars(defs[str(node["$ref"]).rsplit("/", 1)[-1]], defs)
    if node.get("type") == "string" and "enum" not in node:
        return int(node.get("maxLength", 10_000))
    if node.get("type") == "array":
        return int(node.get("maxItems", 100)) * _most_chars(node.get("items"), defs)
    if "anyOf" in node:
        return max(_most_chars(n, defs) for n in node["anyOf"])
    props = node.get("properties", {})
    return sum(_most_chars(v, defs) for v in props.values()) if isinstance(props, dict) else 0


HANGUL_TOKENS_PER_CHAR = 2.1
"""Measured on SmolLM2-135M's tokenizer (a Korean sentence of 81 characters: 171 tokens)."""


def test_the_small_local_models_korean_plot_fits_its_token_budget() -> None:
    """A Korean plot filled to the small model's bounds was about 5,000 tokens: cut at the
    1,024-token budget and retried with 2,048, then 4,096 (minutes per plot on two cores). For
    a Korean or Chinese prompt its bounds are tighter, so even a plot filled to every bound
    fits one attempt; English prompts keep the third (a Latin letter costs about 0.23 tokens).
    Through the router's per-candidate planning too."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import HumanMessage

    from aizac.llm.candidates import Candidate, prepare
    from aizac.llm.methods import STRUCTURED_KWARG, plan_structured
    from aizac.llm.profiles import ModelProfile, attach
    from aizac.writer.schemas import BeatDesign, NovelPlot

    small_profile = ModelProfile("local", "constrained", small_local=True)
    small = attach(FakeListChatModel(responses=["{}"]), small_profile)

    def wire(schema: dict[str, object], language: str) -> dict[str, object]:
        plan = plan_structured(small, schema, "constrained", language)
        out: dict[str, object] = plan.kwargs["response_format"]["schema"]
        return out

    def most(schema: dict[str, object]) -> int:
        return _most_chars(schema, schema.get("$defs", {}))  # type: ignore[arg-type]

    plot = NovelPlot.model_json_schema()
    budget = Settings().structured_max_tokens
    korean = most(wire(plot, "ko"))
    assert korean * HANGUL_TOKENS_PER_CHAR < budget, korean
    assert most(wire(plot, "zh")) == korean
    assert most(wire(BeatDesign.model_json_schema(), "ko")) * HANGUL_TOKENS_PER_CHAR < budget / 2
    english = most(wire(plot, "en"))
    assert english > 3 * korean  # English keeps its room: a letter is a fraction of a token
    # the routed model plans per candidate from the conversation's language
    cand = Candidate("local", "AIZAC_PLANNER_MODEL", small, profile=small_profile)
    request = {"schema": plot, "method": "constrained", "budget": 1024}
    ask = [HumanMessage("회귀, 복수 키워드로 플롯을 짜세요")]
    _, kw = prepare(cand, ask, {STRUCTURED_KWARG: request})
    assert most(kw["response_format"]["schema"]) == korean


def test_the_embedded_model_decodes_on_half_the_cores_unless_told() -> None:
    # llama.cpp's own default takes every core; on a busy 2-core machine that collapsed
    # decoding (bench/local_model.py --threads), so an unset count means half the cores.
    from aizac.llm.providers.local import default_threads

    assert [default_threads(n) for n in (1, 2, 3, 8)] == [1, 1, 1, 4]
    assert default_threads(None) == 1
