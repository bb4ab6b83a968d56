"""Request and response bodies of the REST API (Pydantic, unknown fields refused)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from aizac.application.service import HistoryView
from aizac.text import render
from aizac.writer.project import BeatRecord, ProjectInfo
from aizac.writer.schemas import MAX_ACT_EPISODES, NovelBeat, NovelPlot


def _whole(value: Any) -> Any:
    """``3.0`` is the integer 3 (JSON Schema's ``integer``); ``"3"`` and ``true`` stay what
    they are and are refused by the strict check."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


Int = Annotated[int, BeforeValidator(_whole)]

# What PostgreSQL (AIZAC_DATABASE_URL) cannot store, refused for both engines alike and said in
# the schema: a text column holds no NUL character, an integer column is 32 bits.
INT4_MIN, INT4_MAX = -(2**31), 2**31 - 1
NO_NUL = r"^[^\x00]*$"
"""Any text without U+0000 (the pattern of a free-text field)."""
Version = Annotated[int, Field(ge=INT4_MIN, le=INT4_MAX), BeforeValidator(_whole)] | None
"""An optimistic version a caller sends (bounds inside the optional: see ExportIn)."""


def refuse_nul(value: Any) -> Any:
    """``value`` (a plot or a beat as sent: nested dicts, lists, strings) unless a string in
    it holds U+0000 (its fields reach the key index's text columns); the OpenAPI document
    says the same of every string (:func:`aizac.server.openapi.install`)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and "\x00" in item:
            raise PydanticCustomError("nul_character", "a text holds U+0000")
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


class Body(BaseModel):
    # Python's regex engine: the schema's patterns mean what the server's own checks mean.
    # strict: a JSON 0 is not false, "3" is not 3 (what the schema says is what is accepted).
    model_config = ConfigDict(extra="forbid", regex_engine="python-re", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        # Every body, whatever its fields: no text of a request reaches a column with U+0000
        # (a new body cannot forget the per-field pattern the schema documents).
        return refuse_nul(data)


# The rules of names, written as schema (Python regex syntax: letters are Unicode letters), so
# that anything the schema accepts the server accepts too: a 422 means the body broke these.
USER_NAME = r"^[ \t\r\n]*[^\W_][\w.\-]{1,39}[ \t\r\n]*$"  # spaces, not \s (engines differ)
# The same rule as the document states it to any client: JSON Schema reads a pattern as an
# ECMAScript regex, whose \w is ASCII only, so "Mina\u00ca" or a Hangul name would be "invalid"
# there while the server takes it. The document's classes name what is refused instead (ASCII
# other than letters, digits and the few signs), which reads alike in every engine; a non-ASCII
# character that is no letter or digit passes it and gets the server's 422.
USER_NAME_DOC = (r"^[ \t\r\n]*[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]"
                 r"[^\x00-\x2c\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]{1,39}[ \t\r\n]*$")
PROJECT_NAME = r"^[^\W_](?:[\w \-]|\.[\w \-])*\.?$"  # no "..": a dot is never doubled
# The document's forms of the name patterns, for the same reason as USER_NAME_DOC: a first
# character is no ASCII sign; a next one is no ASCII sign but space, '-' and '_'.
_FIRST_DOC = r"[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]"
_NEXT_DOC = r"[^\x00-\x1f\x21-\x2c\x2e\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"
PROJECT_NAME_DOC = rf"^{_FIRST_DOC}(?:{_NEXT_DOC}|\.{_NEXT_DOC})*\.?$"
_SEPARATORS = ",，、;；\n"
_NOT = _SEPARATORS + "\\x00"  # what a keyword's own characters never are
KEYWORD = rf"^\s*[^\s{_NOT}](?:[^{_NOT}]{{0,28}}[^\s{_NOT}])?\s*$"
KEYWORDS_TEXT = (rf"^\s*[^\s{_NOT}](?:[^{_NOT}]{{0,28}}[^\s{_NOT}])?\s*"
                 rf"(?:[{_SEPARATORS}]\s*[^\s{_NOT}](?:[^{_NOT}]{{0,28}}"
                 rf"[^\s{_NOT}])?\s*){{0,11}}$")
EXPORT_NAME = (r"^(?!(?:[Cc][Oo][Nn]|[Pp][Rr][Nn]|[Aa][Uu][Xx]|[Nn][Uu][Ll]|[Cc][Oo][Mm][1-9]|"
               r"[Ll][Pp][Tt][1-9])$)[^\W_][\w\- ]{0,39}$")
EXPORT_NAME_DOC = EXPORT_NAME.replace(r"[^\W_][\w\- ]{0,39}$", _FIRST_DOC + _NEXT_DOC + "{0,39}$")
Keyword = Annotated[str, Field(pattern=KEYWORD, max_length=40)]
Keywords = Annotated[
    list[Keyword] | Annotated[str, Field(pattern=KEYWORDS_TEXT, max_length=500)],
    Field(description="1-12 keywords of 1-30 characters: a list, or one text separated by "
          "commas, semicolons or line breaks (full-width and ideographic ones too)."),
]
Language = Literal["ko", "en", "zh"]


# ------------------------------------------------------------------------------ accounts
class Credentials(Body):
    name: str = Field(min_length=2, max_length=40, pattern=NO_NUL)
    password: str = Field(min_length=1, max_length=256, pattern=NO_NUL)


class SignupIn(Body):
    name: str = Field(pattern=USER_NAME, max_length=48,
                      description="2-40 letters, digits, '.', '-' or '_', starting with a letter "
                      "or digit; NFKC-normalised, and refused if it looks like a name in use.")
    password: str = Field(min_length=8, max_length=256, pattern=NO_NUL,
                          description="8-256 characters, not easy to guess (common passwords, "
                          "the user name, repeats and keyboard runs are refused).")


class UserOut(Body):
    id: str
    name: str
    role: Literal["user", "admin"] = "user"
    language: Language | None = None


class Me(UserOut):
    projects: int
    storage_mb: float


class MeEdit(Body):
    language: Language | None = Field(
        description="The language of the server's messages to you (null: the browser's).")


class PasswordIn(Body):
    current: str = Field(min_length=1, max_length=256, pattern=NO_NUL)
    new: str = Field(min_length=8, max_length=256, pattern=NO_NUL)


class TokenIn(Body):
    label: str = Field(default="", max_length=80, pattern=NO_NUL)
    scope: Literal["write", "read"] = Field(
        default="write", description="read: the token may only read (GET).")
    expires_in_days: float | None = Field(default=None, gt=0, le=3650,
                                          description="Unset: the token never expires.")


class TokenOut(Body):
    id: str
    label: str
    created_at: float
    scope: Literal["write", "read"] = "write"
    expires_at: float | None = None
    token: str | None = Field(default=None, description="The secret, shown only once.")


class Count(Body):
    count: int = Field(description="How many were ended or revoked.")


class AdminUserIn(SignupIn):
    role: Literal["user", "admin"] = "user"


class AdminUserOut(UserOut):
    disabled: bool
    created_at: float


class AdminUserEdit(Body):
    disabled: bool | None = None
    role: Literal["user", "admin"] | None = None


class NewPassword(Body):
    password: str = Field(min_length=8, max_length=256, pattern=NO_NUL)


# ------------------------------------------------------------------------------ projects
class ProjectIn(Body):
    name: str = Field(pattern=PROJECT_NAME, min_length=1, max_length=64,
                      description="1-64 letters, digits, spaces, '.', '-' or '_', starting with "
                      "a letter or digit, without '..'.")
    keywords: Keywords
    genre: str = Field(default="", max_length=40, pattern=NO_NUL)
    language: Language | None = None


class ProblemOut(Body):
    """Why a listed project cannot be opened, in the error shape (``code``, ``message``,
    ``hint``)."""

    code: str
    message: str
    hint: str


class ProjectOut(Body):
    name: str
    language: str
    genre: str
    keywords: list[str]
    created_at: float
    status: Literal["ok", "damaged", "unreadable"] = Field(
        default="ok", description="`damaged`: a stored file of the project is damaged (its "
        "calls answer error.store.damaged; `problem` says which file); `unreadable`: its "
        "store could not be read now.")
    problem: ProblemOut | None = None

    @classmethod
    def of(cls, info: ProjectInfo, problem: dict[str, str] | None = None) -> ProjectOut:
        status: Literal["ok", "damaged", "unreadable"] = (
            "ok" if info.problem is None else "damaged" if info.damaged else "unreadable")
        return cls(name=info.name, language=info.language, genre=info.genre,
                   keywords=list(info.keywords), created_at=info.created_at, status=status,
                   problem=ProblemOut(**problem) if problem is not None else None)


class ImportOut(Body):
    """What an imported manuscript became: the new project, the files read in order, its
    episodes, beats (one per scene, each with its prose) and length in characters."""

    project: ProjectOut
    files: list[str]
    episodes: int
    beats: int
    characters: int


class ReadIn(Body):
    """How much reading an imported manuscript into memory may spend (none: no limit)."""

    # The bounds before the whole-number validator (a JSON 2.0 is the integer 2), as ExportIn's.
    budget_tokens: Annotated[int, Field(ge=1, le=10**12), BeforeValidator(_whole)] | None = None
    budget_usd: float | None = Field(default=None, gt=0, le=1_000_000)


class ReadOut(Body):
    """What reading an imported manuscript into memory did (resumable: post again to go on).

    ``stopped``: ``""`` when every scene is read, ``"budget"`` when the next scene
    (``next_scene``) would pass the budget; ``dollars`` is null when a model has no price."""

    project: str
    episodes: int
    scenes: int
    read_through: int
    scenes_read: int
    read_now: int
    calls: int
    tokens: int
    dollars: float | None
    stopped: Literal["", "budget"]
    next_scene: str
    memories: int
    said: list[str]


class ProjectEdit(Body):
    genre: str = Field(default="", max_length=40, pattern=NO_NUL)
    keywords: Keywords


class PlotOut(Body):
    version: int
    plot: NovelPlot
    tropes: str = ""


class RoleCostOut(Body):
    """One role's share of reading a manuscript into memory (an estimate)."""

    role: str
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    dollars: float | None = Field(description="US$ (no cache); 0 on the embedded model, null "
                                              "for a model the price table does not list")
    seconds: float
    price_as_of: str | None = None
    speed_measured: bool
    speed_source: str


class ReadingEstimateOut(Body):
    """What reading the project's unread imported scenes into memory will cost, said before it
    starts (:mod:`aizac.application.reading_estimate`); ``lines``: the same in words, in the
    user's language."""

    episodes: int
    scenes: int
    calls: int
    input_tokens: int
    output_tokens: int
    dollars: float | None
    seconds: float
    combined: bool
    embedded: bool
    roles: list[RoleCostOut]
    lines: list[str]

    @classmethod
    def of(cls, found: Any, language: str) -> ReadingEstimateOut:
        from aizac.application.reading_estimate import estimate_lines

        roles = [RoleCostOut(role=r.role, model=r.model, calls=r.calls,
                             input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                             dollars=r.dollars, seconds=r.seconds,
                             price_as_of=r.price.as_of if r.price else None,
                             speed_measured=r.speed.measured, speed_source=r.speed.source)
                 for r in found.roles]
        return cls(episodes=found.episodes, scenes=found.scenes, calls=found.calls,
                   input_tokens=found.input_tokens, output_tokens=found.output_tokens,
                   dollars=found.dollars, seconds=found.seconds, combined=found.combined,
                   embedded=found.embedded, roles=roles,
                   lines=[render(t, language) for t in estimate_lines(found)])


class PlotIn(Body):
    plot: Annotated[NovelPlot, BeforeValidator(refuse_nul)]
    version: Version = None

    @field_validator("plot", mode="before")
    @classmethod
    def _episodes_as_sent(cls, value: Any) -> Any:
        """The plot model rounds and clamps a model's act lengths (decoding cannot bound an
        integer); a caller's must already be whole numbers in range, as the schema says."""
        acts = value.get("acts") if isinstance(value, dict) else None
        for act in acts if isinstance(acts, list) else []:
            n = act.get("episodes") if isinstance(act, dict) else None
            n = _whole(n)
            if type(n) is not int or not 1 <= n <= MAX_ACT_EPISODES:
                raise ValueError(f"each act's episodes must be a whole number 1-{MAX_ACT_EPISODES}")
        return value


# --------------------------------------------------------------------------------- beats
class BeatOut(Body):
    id: int
    episode: int
    index: int
    status: str
    version: int
    beat: NovelBeat
    prose: str | None = None
    written: list[str] = Field(default_factory=list)
    """The fields the writer wrote: regenerations keep them until they are unlocked."""

    @classmethod
    def of(cls, r: BeatRecord) -> BeatOut:
        return cls(id=r.id, episode=r.episode, index=r.index, status=r.status,
                   version=r.version, beat=r.beat, prose=r.prose, written=list(r.written))


class Sibling(Body):
    label: str
    node_id: str


class HistoryOut(Body):
    node_id: str | None
    can_undo: bool
    can_redo: bool
    path: list[str]
    siblings: list[Sibling] = Field(description="Other branches at this point (switch to one "
                                    "with POST .../switch).")

    @classmethod
    def of(cls, h: HistoryView) -> HistoryOut:
        # the history's steps are data now (aizac.application.service.HistoryStep): said in
        # English here, as the API said them before
        return cls(node_id=h.node_id, can_undo=h.can_undo, can_redo=h.can_redo,
                   path=[render(s.text(), "en") for s in h.path],
                   siblings=[Sibling(label=render(label, "en"), node_id=node)
                             for label, node in h.siblings])


class BeatsOut(Body):
    episode: int
    beats: list[BeatOut]
    draft: BeatOut | None
    history: HistoryOut


class BeatEdit(Body):
    version: Version = None
    beat: Annotated[NovelBeat, BeforeValidator(refuse_nul)]


class RegenerateIn(Body):
    version: Version = None
    instruction: str = Field(default="", max_length=500, pattern=NO_NUL)
    locked: list[Annotated[str, Field(max_length=40, pattern=NO_NUL)]] | None = Field(default=None,
                                                                      max_length=20)
    """The fields to keep; left out: the fields the writer wrote (the draft's ``written``)."""


class PlanEpisodeIn(Body):
    """'Plan this episode': the writer's instruction for the episode's remaining beats."""

    instruction: str = Field(default="", max_length=500)


class WrittenIn(Body):
    """The draft's fields the writer keeps (locks); the others may change on regeneration."""

    version: Version = None
    fields: list[Annotated[str, Field(max_length=40, pattern=NO_NUL)]] = Field(default_factory=list,
                                                               max_length=20)


class VersionIn(Body):
    version: Version = None


class SwitchIn(Body):
    node_id: str = Field(min_length=1, max_length=64, pattern=NO_NUL)


class ProseIn(Body):
    text: str = Field(min_length=1, max_length=200_000, pattern=NO_NUL)


# -------------------------------------------------------------------------------- memory
class MemoryOut(Body):
    id: str
    text: str
    tag: str
    pinned: bool
    strength: float
    memory_factor: float
    live: bool

    @classmethod
    def of(cls, hit: Any) -> MemoryOut:
        return cls(id=str(hit.id), text=str(hit.text), tag=str(hit.tag), pinned=bool(hit.pinned),
                   strength=float(hit.strength), memory_factor=float(hit.memory_factor),
                   live=bool(hit.live))


class PinIn(Body):
    ids: list[Annotated[str, Field(min_length=1, max_length=100, pattern=NO_NUL)]] = Field(
        min_length=1, max_length=200)
    pinned: bool = True


class AskIn(Body):
    question: str = Field(min_length=1, max_length=500, pattern=r"^[^\x00]*[^\s\x00][^\x00]*$")


class Answer(Body):
    id: str | None
    text: str
    tag: str | None


# ------------------------------------------------------------------------------ pictures
SLOT = r"^(?:cover|beat:[1-9][0-9]{0,8})$"
"""Where a picture goes: ``cover``, or ``beat:<id>`` of an accepted beat."""
IMAGE_ID = r"^img-[0-9a-f]{16}$"


class PictureIn(Body):
    slot: str = Field(pattern=SLOT, max_length=16,
                      description="cover, or beat:<id> (an accepted beat's illustration).")
    prompt: str | None = Field(
        default=None, min_length=1, max_length=4000, pattern=r"^[^\x00]*[^\s\x00][^\x00]*$",
        description="The prompt to send (default: the slot's own, drawn from the story; "
        "GET .../pictures/prompt shows it and what a picture costs).")


class PictureOut(Body):
    id: str
    kind: str
    episode: int
    beat: int
    beat_id: int
    model: str
    billable: bool
    media_type: str
    width: int
    height: int
    size: int
    prompt: str
    created_at: float
    placed: str | None = Field(description="The slot it is placed in, if any.")


class PicturePromptOut(Body):
    slot: str
    prompt: str
    edited: bool
    model: str
    billable: bool
    left: int
    budget: int


class PlaceIn(Body):
    slot: str = Field(pattern=SLOT, max_length=16)
    image_id: str | None = Field(pattern=IMAGE_ID, description="null takes the picture out.")


class PlacementOut(Body):
    slot: str
    image_id: str | None
    before: str | None = Field(description="What was placed there before.")


# -------------------------------------------------------------------------- export, runs
class ExportIn(Body):
    format: Literal["txt", "md", "epub", "docx", "zip"] = Field(
        default="txt", description="zip: one text file per episode, for upload.")
    # The bounds before the whole-number validator, inside the optional: elsewhere they reach
    # the schema as pydantic's own keys (``ge``), which no JSON Schema reader knows.
    first: Annotated[int, Field(ge=1, le=100_000), BeforeValidator(_whole)] | None = None
    last: Annotated[int, Field(ge=1, le=100_000), BeforeValidator(_whole)] | None = None
    filename: str | None = Field(
        default=None, pattern=EXPORT_NAME, max_length=40,
        description="A plain file name without extension or folders (default: the title).")


class ExportOut(Body):
    file: str
    without_prose: list[str]
    target_length: int | None = Field(
        default=None, description="zip: the project's target length of an episode "
                                  "(characters in Korean and Chinese, words in English).")
    too_short: list[int] = Field(
        default_factory=list, description="zip: episodes more than 20% under the target.")
    too_long: list[int] = Field(
        default_factory=list, description="zip: episodes more than 20% over the target.")


class RunOut(Body):
    id: str
    kind: str
    project: str
    beat_id: int | None
    status: str
    text: str
    error: str
