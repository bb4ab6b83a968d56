"""The application service over a real Studio and scripted fakes (the web app's fixtures), and
a small Korean serial written out as a folder of txt files."""

from __future__ import annotations

from pathlib import Path

from tests.web.conftest import cliche_db, model, service, settings, studio

__all__ = ["cliche_db", "model", "scene_text", "service", "settings", "studio", "write_serial"]

SENTENCE = "한서아는 왕도의 북문을 지나 천천히 걸었다. 바람이 차가웠고 하늘은 낮게 내려앉아 있었다."


def scene_text(episode: int, scene: int) -> str:
    """Scene ``scene`` of episode ``episode`` as an import stores it: three paragraphs, each
    saying where it stands (so order is checked), long enough to be a scene of its own."""
    return "\n".join(f"{episode}화 {scene}장 {p}문단. " + SENTENCE * 2 for p in (1, 2, 3))


def write_serial(root: Path, episodes: int = 3, *, cp949: int = 2) -> Path:
    """A folder of ``episodes`` files, ``1화.txt``..., each a heading and two scenes split by
    ``***``; episode ``cp949`` is written in CP949, the others in UTF-8."""
    folder = root / "원고"
    folder.mkdir(parents=True)
    for n in range(1, episodes + 1):
        body = "\n\n***\n\n".join(scene_text(n, s).replace("\n", "\n\n") for s in (1, 2))
        text = f"{n}화 귀환 {n}\n\n{body}\n"
        (folder / f"{n}화.txt").write_bytes(text.encode("cp949" if n == cp949 else "utf-8"))
    return folder
