"""Settings, the offline token estimate, the hashing embedding and error messages."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from aizac.errors import ConfigError, InvalidInputError, NotFoundError
from aizac.llm.embeddings import HashingEmbeddings, embeddings_from_spec
from aizac.settings import Settings
from aizac.tokens import count_tokens, truncate_to_tokens


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


class TestSettings:
    def test_defaults_are_offline(self) -> None:
        s = Settings()
        assert {s.role_spec(r) for r in ("planner", "writer", "extractor", "reviewer")} == {"local"}
        assert s.embedding == "hash"
        assert s.openai_api_key is None

    def test_environment_and_provider_key_names(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("AIZAC_PLANNER_MODEL", "openai:gpt-4o")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
        s = Settings()
        assert s.planner_model == "openai:gpt-4o"
        assert s.openai_api_key is not None
        assert s.openai_api_key.get_secret_value() == "sk-test-secret"
        assert "sk-test-secret" not in repr(s)

    def test_toml_file_is_read_and_env_wins(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        cfg = tmp_path / "aizac.toml"
        cfg.write_text('language = "en"\nwriter_model = "anthropic:claude-sonnet-4-5"\n')
        monkeypatch.setenv("AIZAC_CONFIG", str(cfg))
        monkeypatch.setenv("AIZAC_LANGUAGE", "zh")
        s = Settings()
        assert s.writer_model == "anthropic:claude-sonnet-4-5"
        assert s.language == "zh"

    def test_bad_values_are_rejected(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("AIZAC_LANGUAGE", "fr")
        with pytest.raises(ValidationError):
            Settings()

    def test_unknown_role_names_the_roles(self) -> None:
        with pytest.raises(ConfigError, match="planner, writer, extractor, reviewer"):
            Settings().role_spec("poet")

    def test_tag_strengths_cover_all_tags(self) -> None:
        assert set(Settings().tag_strengths()) == {
            "Story",
            "Character",
            "CharacterRelation",
            "NovelSetting",
        }


class TestTokens:
    def test_empty_and_korean(self) -> None:
        assert count_tokens("") == 0
        assert count_tokens("회귀한 검사") == 5  # one per Hangul syllable

    def test_english_words_and_numbers(self) -> None:
        assert count_tokens("The guild master") == 1 + 2 + 2
        assert count_tokens("chapter 500!") == 2 + 1 + 1

    def test_truncate_respects_budget(self) -> None:
        text = "미라는 길드장을 믿지 않는다. Mira distrusts the guild master."
        for budget in (0, 1, 5, 12, 100):
            cut = truncate_to_tokens(text, budget)
            assert count_tokens(cut) <= budget
            assert text.startswith(cut)
        assert truncate_to_tokens(text, 1000) == text


class TestHashingEmbeddings:
    def test_deterministic_unit_vectors(self) -> None:
        emb = HashingEmbeddings(64)
        a = emb.embed_query("미라는 길드장을 불신한다")
        assert a == HashingEmbeddings(64).embed_documents(["미라는 길드장을 불신한다"])[0]
        assert len(a) == 64
        assert math.isclose(math.sqrt(_cos(a, a)), 1.0, rel_tol=1e-9)

    def test_similar_texts_are_closer_in_each_language(self) -> None:
        emb = HashingEmbeddings()
        for base, near, far in [
            ("Mira distrusts the guild master", "the guild master is distrusted by Mira",
             "a dragon sleeps under the northern sea"),
            ("미라는 길드장을 불신한다", "길드장을 불신하는 미라", "북쪽 바다 아래 용이 잠든다"),
            ("米拉不信任公会会长", "公会会长不被米拉信任", "北海之下沉睡着一条龙"),
        ]:
            b, n, f = emb.embed_query(base), emb.embed_query(near), emb.embed_query(far)
            assert _cos(b, n) > _cos(b, f) + 0.2

    def test_empty_text_is_a_valid_vector(self) -> None:
        v = HashingEmbeddings(16).embed_query("...")
        assert math.isclose(_cos(v, v), 1.0)

    def test_specs(self) -> None:
        assert isinstance(embeddings_from_spec("hash:32", Settings()), HashingEmbeddings)
        with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
            embeddings_from_spec("openai:text-embedding-3-small", Settings())
        with pytest.raises(ConfigError, match="unknown embedding provider"):
            embeddings_from_spec("word2vec:x", Settings())
        with pytest.raises(ConfigError, match="does not exist"):
            embeddings_from_spec("sentence-transformers:/no/such/model", Settings())


def test_errors_carry_a_hint() -> None:
    err = InvalidInputError("Keywords are empty.", hint="Type at least one keyword.")
    assert str(err) == "Keywords are empty. Type at least one keyword."
    assert isinstance(err, ValueError)
    missing = NotFoundError("No memory with id 'x'.")
    assert isinstance(missing, KeyError)
    assert str(missing).startswith("No memory with id 'x'.")
