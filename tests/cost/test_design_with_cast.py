"""A design call that also profiles the characters it introduces (one call instead of two)."""

from __future__ import annotations

from aizac.writer.combined import BeatDesignWithCast, introduced_profiles


def design(**extra: object) -> BeatDesignWithCast:
    return BeatDesignWithCast.model_validate({
        "location": "북문 시장", "time": "밤", "characters": ["강준", "한석", "윤재희"],
        "events": ["한석이 강준에게 지도를 판다"], **extra,
    })


def profile(name: str, aliases: list[str] | None = None) -> dict[str, object]:
    return {"name": name, "aliases": aliases or [], "role": "상인", "profile": "지도를 판다.",
            "goal": "돈."}


def test_profiles_of_new_cast_members_are_kept_and_settled() -> None:
    d = design(new_characters=[profile(" 한석", ["강준", "외눈"]), profile("강준"),
                               profile("낯선 이")])
    got = introduced_profiles(d, {"강준": ["준"], "서유나": []})
    # 강준 is known, 낯선 이 is not in the cast: dropped; 한석's clashing alias is removed.
    assert [(p.name, p.aliases) for p in got] == [("한석", ["외눈"])]
    # 윤재희 has no profile here: the separate profile call still makes one.
    assert d.design().characters == ["강준", "한석", "윤재희"]
    assert "new_characters" not in d.design().model_dump()


def test_no_profiles_is_valid() -> None:
    assert introduced_profiles(design(), {"강준": []}) == []
