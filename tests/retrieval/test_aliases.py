import pytest

from aizac.errors import UnknownCharacterError
from aizac.retrieval.aliases import AliasResolver, normalize_name


@pytest.fixture
def resolver() -> AliasResolver:
    return AliasResolver(
        {
            "Lee Youngmin": ["이영민", "Young-min"],
            "Kang Mira": ["강미라"],
            "Kang Jun": ["강준"],
        }
    )


def test_normalize_ignores_case_spaces_and_joiners() -> None:
    assert normalize_name("Lee Young-min") == normalize_name("lee  youngmin") == "leeyoungmin"


@pytest.mark.parametrize(
    "name",
    ["Lee Youngmin", "lee youngmin", "LeeYoungmin", "이영민", "이 영민", "Young-min", "영민"],
)
def test_every_spelling_resolves_to_the_canonical_name(
    resolver: AliasResolver, name: str
) -> None:
    assert resolver.canonical(name) == "Lee Youngmin"


def test_unique_word_of_a_name_resolves(resolver: AliasResolver) -> None:
    assert resolver.resolve("Mira") == "Kang Mira"


def test_shared_family_name_is_ambiguous(resolver: AliasResolver) -> None:
    assert resolver.resolve("Kang") is None
    with pytest.raises(UnknownCharacterError, match="ambiguous"):
        resolver.canonical("Kang")


def test_unknown_name_raises_specific_error(resolver: AliasResolver) -> None:
    assert "Park Sora" not in resolver
    with pytest.raises(UnknownCharacterError, match="Park Sora"):
        resolver.canonical("Park Sora")


def test_canonical_name_beats_someone_elses_alias() -> None:
    resolver = AliasResolver({"Jun": [], "Kang Jun": ["Jun"]})
    assert resolver.canonical("Jun") == "Jun"
    assert resolver.canonical("kang jun") == "Kang Jun"


class _Mem:
    def characters(self) -> dict[str, list[str]]:
        return {"Kang Mira": ["강미라"]}


def test_from_memory_adds_names_without_profiles() -> None:
    resolver = AliasResolver.from_memory(_Mem(), extra_names=["Guild master", "강미라"])
    assert resolver.names == {"Kang Mira", "Guild master"}
    assert resolver.canonical("guild  master") == "Guild master"


@pytest.mark.parametrize("name", ["이영민과", "이영민이", "영민의", "강미라에게", "미라는"])
def test_korean_particle_after_a_name_is_ignored(resolver: AliasResolver, name: str) -> None:
    assert resolver.resolve(name) in ("Lee Youngmin", "Kang Mira")
    assert resolver.resolve(name) == ("Kang Mira" if "미라" in name else "Lee Youngmin")


def test_particle_is_only_stripped_when_the_whole_name_is_unknown() -> None:
    resolver = AliasResolver({"한가": [], "한가을": []})
    assert resolver.resolve("한가을") == "한가을"  # a name ending in a particle-like syllable
    assert resolver.resolve("한가을의") == "한가을"
    assert resolver.resolve("박서준과") is None


@pytest.mark.parametrize("name",
                         ["이영민까지", "영민으로", "이영민에서", "강미라 후배가", "미라야"])
def test_a_particle_or_title_of_the_one_home_is_ignored(resolver: AliasResolver,
                                                         name: str) -> None:
    # aizac/text/particles.toml: 까지, (으)로, 에서 and the title 후배 were missing from the
    # list retrieval kept of its own.
    assert resolver.resolve(name) == ("Kang Mira" if "미라" in name else "Lee Youngmin")
