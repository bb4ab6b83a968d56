"""Settings from the environment, an optional ``.env`` and an optional ``aizac.toml``.

Precedence (highest first): constructor arguments, environment variables, ``.env``, the model
specs and keys stored in the data directory (``aizac models set/key``, the Models panel; see
:mod:`aizac.stored_models`), the TOML file (``AIZAC_CONFIG`` or ``./aizac.toml``), defaults.
Provider keys are ``SecretStr`` so they are never printed; they also accept the providers' usual
variable names (``OPENAI_API_KEY`` ...).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from aizac.errors import ConfigError
from aizac.settings_fast import default_data_dir
from aizac.settings_values import IMAGE_ROLE, ROLES, parse_size, port_numbers
from aizac.text import Text, Verbatim
from aizac.text.message import Clauses

Language = Literal["ko", "en", "zh"]
# Chroma's rule for tenant, database and collection names.
CHROMA_NAME = r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$"


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class Settings(BaseSettings):
    """Everything aizac can be configured with. See README "Configuration"."""

    model_config = SettingsConfigDict(
        env_prefix="AIZAC_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    # Unset: ./aizac-data when it holds a writer's data (the old default), else the platform's
    # user data folder (aizac.settings_fast.default_data_dir).
    data_dir: Path = Field(default_factory=default_data_dir)
    # The trope index (derived from the packaged beats.csv); unset: <data_dir>/cliches. Several
    # server processes sharing one data volume each point it at a folder of their own.
    cliches_dir: Path | None = None
    language: Language = "ko"

    # Role -> model spec ("local", "openai:gpt-4o", "anthropic:claude-sonnet-4-5",
    # "clova:HCX-005", "ollama:qwen2.5:7b", "openai-compatible:http://host:port/v1:model").
    planner_model: str = "local"
    writer_model: str = "local"
    extractor_model: str = "local"
    reviewer_model: str = "local"
    planner_fallback: str | None = None
    writer_fallback: str | None = None
    extractor_fallback: str | None = None
    reviewer_fallback: str | None = None

    # "local" (offline default: the semantic model installed here, "e5" else "use"), "e5",
    # "use", "hash" (instant and lexical, optionally "hash:DIM"), "openai:MODEL",
    # "ollama:MODEL", "sentence-transformers:/path/to/model". A project keeps the embedding it
    # was written with until `aizac reindex` moves it to this one.
    embedding: str = "local"

    structured_retries: int = Field(default=2, ge=0, le=10)
    # The small embedded model is asked again more often: a call costs it seconds, and a new
    # seed is what turns a degenerate reply into a usable one (bench/grammar_quality.py).
    structured_small_retries: int = Field(default=5, ge=0, le=20)
    # The base sampling seed of models that take one (the embedded model's own; structured
    # retries send seed + attempt).
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    # Token budget of a structured (JSON) reply on the small local model (its prose budget,
    # AIZAC_LOCAL_MAX_TOKENS, is too small for a plot); any model's reply cut at its token limit
    # is asked again with twice the room, up to the cap.
    structured_max_tokens: int = Field(default=1024, ge=64)
    structured_max_tokens_cap: int = Field(default=4096, ge=64)
    transient_retries: int = Field(default=3, ge=0, le=10)
    request_timeout: float = Field(default=120.0, gt=0)
    local_model_path: Path | None = None
    local_context: int = Field(default=4096, ge=512)
    local_max_tokens: int = Field(default=512, ge=16)
    # 0 = half the cores (providers/local.py: default_threads): on a busy 2-core machine two
    # threads measured five times slower than one (bench/local_model.py), so more is opt-in.
    local_threads: int = Field(default=0, ge=0, le=256)
    # Sampling of the local model. Free text (prose): a warmer temperature with nucleus/min-p
    # cut-offs and a repeat penalty keeps SmolLM2 from looping on one sentence (greedy-ish 0.2
    # loops after ~100 words). Structured (JSON-schema-constrained) output keeps a cool
    # temperature and a mild penalty: the grammar forces the JSON syntax and field names (a
    # penalty cannot break them), while without one the 135M model looped on copied words in
    # Korean plots ("전개, 전개, 전개", "막은" in most fields; with 1.15 the same prompt passed).
    local_temperature: float = Field(default=0.7, ge=0, le=2)
    local_top_p: float = Field(default=0.9, gt=0, le=1)
    local_min_p: float = Field(default=0.05, ge=0, le=1)
    local_repeat_penalty: float = Field(default=1.15, ge=1, le=2)
    local_presence_penalty: float = Field(default=0.0, ge=-2, le=2)
    local_json_temperature: float = Field(default=0.2, ge=0, le=2)
    local_json_repeat_penalty: float = Field(default=1.15, ge=1, le=2)
    # Tokens the penalties look back over (llama.cpp's default 64 let paragraphs loop).
    local_repeat_last_n: int = Field(default=256, ge=0, le=4096)

    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=_alias("AIZAC_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=_alias("AIZAC_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    )
    anthropic_api_key: SecretStr | None = Field(
        default=None, validation_alias=_alias("AIZAC_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")
    )
    anthropic_base_url: str | None = Field(
        default=None, validation_alias=_alias("AIZAC_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL")
    )
    clova_api_key: SecretStr | None = Field(
        default=None, validation_alias=_alias("AIZAC_CLOVA_API_KEY", "CLOVASTUDIO_API_KEY")
    )
    clova_base_url: str = Field(
        default="https://clovastudio.stream.ntruss.com",
        validation_alias=_alias("AIZAC_CLOVA_BASE_URL", "CLOVASTUDIO_BASE_URL"),
    )
    # Key for ``openai-compatible:URL:MODEL`` servers (the OpenAI key is never sent to them).
    openai_compatible_api_key: SecretStr | None = None
    ollama_base_url: str = Field(
        default="http://127.0.0.1:11434",
        validation_alias=_alias("AIZAC_OLLAMA_BASE_URL", "OLLAMA_HOST"),
    )
    # The writer's own model servers on 127.0.0.1 (Ollama, LM Studio, llama.cpp, vLLM...), looked
    # for by the web app at start and by `aizac models` (aizac/llm/discovery.py): loopback only,
    # all ports at once, each answer awaited at most discover_timeout seconds. discover_ports
    # replaces the usual ports (aizac/llm/local_servers.toml), e.g. "11434,8080".
    discover: bool = True
    discover_ports: str = ""
    discover_timeout: float = Field(default=0.5, gt=0, le=10)
    # Illustrations (aizac.illustration): the image role's spec. "typographic" (the offline
    # default: a cover or scene card set in type with Pillow), "openai:gpt-image-1",
    # "openai-compatible:URL:MODEL", "sdwebui:URL[:CHECKPOINT]" (Stable Diffusion WebUI's
    # /sdapi/v1/txt2img), "comfyui:URL:CHECKPOINT" (ComfyUI's /prompt API).
    image_model: str = "typographic"
    # Pictures a project may have a paid provider make (the typographic default is free).
    image_budget: int = Field(default=20, ge=0, le=100_000)
    image_cover_size: str = "1024x1536"
    image_scene_size: str = "1536x1024"
    image_steps: int = Field(default=25, ge=1, le=150)
    image_timeout: float = Field(default=300.0, gt=0)
    # A font file for typographic images (unset: fontconfig's font for the story language).
    cover_font: Path | None = None
    # "user:password" of a Stable Diffusion WebUI started with --api-auth; a bearer token for a
    # ComfyUI behind an authenticating proxy.
    sdwebui_auth: SecretStr | None = None
    comfyui_api_key: SecretStr | None = None
    # Optional Chroma server; unset means embedded Chroma under data_dir (see
    # aizac.memory.chroma_client). Tenant and database hold memories of no namespace; a
    # namespace (one per user sandbox on a server) gets a database of its own in the tenant.
    chroma_host: str | None = None
    chroma_port: int = Field(default=8000, ge=1, le=65535)
    chroma_ssl: bool = False
    chroma_tenant: str = Field(default="default_tenant", pattern=CHROMA_NAME)
    chroma_database: str = Field(default="default_database", pattern=CHROMA_NAME)
    # Seconds one request to the Chroma server may take (its own client waits forever: a hung
    # server would hang every caller and the shutdown).
    chroma_timeout_s: float = Field(default=30.0, gt=0, le=3600)

    # Where accounts and projects are stored: unset, embedded SQLite files under data_dir (the
    # default); "postgresql://user:password@host/db", one PostgreSQL database that several aizac
    # processes share (aizac.storage; create its tables with `aizac db upgrade`).
    database_url: SecretStr | None = None

    # Memory: initial strength per tag and the forgetting threshold (see README "Memory").
    memory_threshold: float = Field(default=1.0, gt=0, lt=10)
    strength_story: float = Field(default=10.0, gt=0)
    strength_character: float = Field(default=30.0, gt=0)
    strength_relation: float = Field(default=20.0, gt=0)
    strength_setting: float = Field(default=40.0, gt=0)
    short_term_tokens: int = Field(default=1200, ge=64)

    # Episode length (the writer's choice; a project can override both): beats per episode
    # and target prose per episode, in characters for ko/zh and words for en. Unset: the
    # language's web-novel default (aizac.writer.episode.DEFAULT_LENGTH).
    beats_per_episode: int | None = Field(default=None, ge=1, le=50)
    episode_length: int | None = Field(default=None, ge=50, le=100_000)
    # The autopilot's LangGraph checkpointer: "auto" (the project folder's SQLite file, or the
    # PostgreSQL database of AIZAC_DATABASE_URL), "sqlite", "memory" or "postgres:URL".
    autopilot_checkpointer: str = "auto"

    # Web app and email export. The interface is English unless ui_language is "ko" or "zh".
    ui_language: Literal["en", "ko", "zh"] = "en"
    host: str = "127.0.0.1"
    port: int = Field(default=7860, ge=1, le=65535)
    smtp_host: str | None = None
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_starttls: bool = True
    smtp_user: str | None = None
    smtp_password: SecretStr | None = None
    smtp_sender: str | None = None

    @field_validator("chroma_host")
    @classmethod
    def _chroma_host_only(cls, value: str | None) -> str | None:
        host = (value or "").strip()
        if not host:
            return None  # blank = unset: embedded Chroma
        if "://" in host or "/" in host or host.count(":") == 1:
            raise ValueError(
                "give a host name or address only (e.g. chroma or 127.0.0.1); the port goes "
                "to AIZAC_CHROMA_PORT, https to AIZAC_CHROMA_SSL=true"
            )
        return host

    @field_validator("discover_ports")
    @classmethod
    def _ports(cls, value: str) -> str:
        port_numbers(value)  # raises ValueError naming the bad entry
        return value.strip()

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: SecretStr | None) -> SecretStr | None:
        url = value.get_secret_value().strip() if value is not None else ""
        if not url:
            return None  # blank = unset: embedded SQLite
        if not url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
            raise ValueError("give a PostgreSQL URL (postgresql://user:password@host:5432/db), "
                             "or leave it unset for the embedded SQLite files")
        return SecretStr(url)

    @property
    def database(self) -> str | None:
        """The PostgreSQL URL of ``AIZAC_DATABASE_URL`` (``None``: embedded SQLite)."""
        return self.database_url.get_secret_value() if self.database_url else None

    @field_validator("image_cover_size", "image_scene_size")
    @classmethod
    def _image_size(cls, value: str) -> str:
        width, height = parse_size(value.strip())  # ValueError names the rule
        return f"{width}x{height}"

    @field_validator("planner_model", "writer_model", "extractor_model", "reviewer_model",
                     "image_model")
    @classmethod
    def _spec_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a model spec cannot be empty; use 'local' for the embedded model")
        return value.strip()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        from aizac.stored_models import StoredModelsSource

        toml_path = Path(os.environ.get("AIZAC_CONFIG", "aizac.toml"))
        return (
            init_settings,
            env_settings,
            dotenv_settings,
            # `aizac models set/key` and the Models panel: under the environment, over the TOML.
            StoredModelsSource(settings_cls),
            TomlConfigSettingsSource(settings_cls, toml_file=toml_path),
            file_secret_settings,
        )

    def role_spec(self, role: str) -> str:
        """The model spec configured for ``role`` (``image`` too)."""
        if role == IMAGE_ROLE:
            return self.image_model
        if role not in ROLES:
            raise ConfigError("error.model.role", role=str(role), roles=", ".join(ROLES))
        return str(getattr(self, f"{role}_model"))

    def role_fallback(self, role: str) -> str | None:
        """The fallback model spec for ``role``, if any (the image role has none)."""
        self.role_spec(role)
        if role == IMAGE_ROLE:
            return None
        value = getattr(self, f"{role}_fallback")
        return str(value) if value else None

    def tag_strengths(self) -> dict[str, float]:
        """Initial memory strength for each memory tag."""
        return {
            "Story": self.strength_story,
            "Character": self.strength_character,
            "CharacterRelation": self.strength_relation,
            "NovelSetting": self.strength_setting,
        }


def setting_env_name(field: str) -> str:
    """The environment variable that sets ``field`` (its alias if it has one)."""
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info is not None else None
    if isinstance(alias, AliasChoices) and alias.choices and isinstance(alias.choices[0], str):
        return alias.choices[0]
    return f"AIZAC_{field.upper()}"


def settings_error(error: ValidationError) -> ConfigError:
    """A settings validation error as one ConfigError naming each bad variable, e.g.
    ``AIZAC_LANGUAGE='fr' is not valid: Input should be 'ko', 'en' or 'zh'``. Values of secret
    fields are never quoted."""
    parts: list[Text | Verbatim] = []
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else ""
        name = setting_env_name(field) if field else "?"
        secret = "key" in field or "password" in field
        shown = "" if secret or "input" not in item else f"={item['input']!r}"
        # pydantic's (or a validator's) own words about the value, quoted as they are
        parts.append(Text("error.settings.item", name=name + shown,
                          problem=Verbatim(str(item["msg"]))))
    return ConfigError("error.settings.invalid", items=Clauses(tuple(parts)))


def load_settings(**overrides: Any) -> Settings:
    """``Settings(**overrides)``, with a bad value reported as a :class:`ConfigError` naming the
    variable instead of pydantic's ValidationError."""
    try:
        return Settings(**overrides)
    except ValidationError as e:
        raise settings_error(e) from e


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings read once per process (tests build ``Settings(...)`` directly instead).

    Raises:
        ConfigError: a setting has a bad value (names the variable).
    """
    return load_settings()
