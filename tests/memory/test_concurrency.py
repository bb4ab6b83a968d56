"""Two threads remembering and recalling at once lose no writes."""

from __future__ import annotations

import threading

from aizac.memory import WriterMemory

PER_THREAD = 40


def test_two_threads_lose_no_writes(mem: WriterMemory) -> None:
    shared = mem.remember("The shared harbour legend.", tag="NovelSetting")
    errors: list[BaseException] = []
    ids: dict[str, list[str]] = {"a": [], "b": []}
    start = threading.Barrier(2)

    def work(name: str) -> None:
        try:
            start.wait()
            for i in range(PER_THREAD):
                ids[name].append(mem.remember(f"{name} fact {i} about the harbour.", tag="Story"))
                hits = mem.recall("shared harbour legend", k=1, tag="NovelSetting")
                assert hits and hits[0].id == shared
        except BaseException as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert len(mem) == 1 + 2 * PER_THREAD
    assert len(set(ids["a"]) | set(ids["b"])) == 2 * PER_THREAD
    # Every recall reinforced the shared memory exactly once: no lost read-modify-write.
    assert mem.get(shared).strength == 40 + 2 * PER_THREAD
