"""The undo/redo cache tree: linear history, branching, redo memory, switching, commit ids,
persistence round-trips and clear errors."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from aizac.application.tree import Transition, UndoTree
from aizac.errors import InvalidInputError, NotFoundError


def _ids(nodes: list[Any]) -> list[str]:
    return [n.id for n in nodes]


def _redo(tree: UndoTree) -> str:
    node = tree.redo()
    assert node is not None, "expected something to redo"
    return node.id


def _beat(text: str) -> dict[str, Any]:
    return {"beat_id": 1, "fields": {"place": "궁궐", "events": [text]}}


@pytest.fixture
def linear() -> tuple[UndoTree, list[str]]:
    """root -> a (generate) -> b (edit) -> c (accept)."""
    tree = UndoTree()
    a = tree.add(_beat("a"), "generate")
    b = tree.add(_beat("b"), "edit")
    c = tree.add(_beat("c"), "accept", commit_ids=["m1", "m2"])
    return tree, [a, b, c]


class TestLinearHistory:
    def test_starts_at_an_empty_root(self) -> None:
        tree = UndoTree()
        assert tree.current.is_root and tree.current.kind == "root"
        assert tree.current.payload is None
        assert (tree.can_undo, tree.can_redo) == (False, False)
        assert tree.undo() is None and tree.redo() is None
        assert len(tree) == 1
        assert _ids(tree.path()) == ["n0"]

    def test_add_moves_to_the_new_child(self, linear: tuple[UndoTree, list[str]]) -> None:
        tree, (a, b, c) = linear
        assert tree.current.id == c
        assert tree.current.kind == "accept"
        assert tree.current.payload == _beat("c")
        assert _ids(tree.path()) == ["n0", a, b, c]
        assert (tree.can_undo, tree.can_redo) == (True, False)

    def test_undo_to_the_root_then_redo_to_the_end(
        self, linear: tuple[UndoTree, list[str]]
    ) -> None:
        tree, (a, b, c) = linear
        visited = []
        while (node := tree.undo()) is not None:
            visited.append(node.id)
        assert visited == [b, a, "n0"]
        assert tree.current.is_root and tree.can_redo
        forward = []
        while (node := tree.redo()) is not None:
            forward.append(node.id)
        assert forward == [a, b, c]
        assert tree.current.payload == _beat("c")

    def test_undo_redo_reports_the_transition(self, linear: tuple[UndoTree, list[str]]) -> None:
        tree, (_, b, c) = linear
        tree.undo()
        assert _ids(list(tree.last_transition.undone)) == [c]
        assert tree.last_transition.redone == ()
        assert tree.last_transition.commits_to_revert == ("m2", "m1")
        tree.redo()
        assert _ids(list(tree.last_transition.redone)) == [c]
        assert _ids(list(tree.last_transition.commits_to_apply)) == [c]
        assert tree.current.id == c and tree.get(b).kind == "edit"


class TestBranching:
    def test_adding_after_undo_makes_a_sibling_and_keeps_the_old_branch(
        self, linear: tuple[UndoTree, list[str]]
    ) -> None:
        tree, (a, b, c) = linear
        tree.undo()
        tree.undo()  # at a
        d = tree.add(_beat("d"), "regenerate", instruction="more tension")
        assert tree.get(d).parent_id == a
        assert _ids(tree.siblings(d)) == [b, d]
        assert _ids(tree.siblings(b)) == [b, d]
        assert tree.siblings() == tree.siblings(d)
        assert tree.branch_position(b) == (1, 2) and tree.branch_position() == (2, 2)
        assert tree.get(d).meta == {"instruction": "more tension"}
        assert c in tree and tree.get(c).parent_id == b  # the undone branch survives
        assert len(tree) == 5

    def test_redo_follows_the_newest_branch(self, linear: tuple[UndoTree, list[str]]) -> None:
        tree, (a, _, _) = linear
        tree.undo()
        tree.undo()
        d = tree.add(_beat("d"), "regenerate")
        tree.undo()
        assert tree.current.id == a
        target = tree.redo_target()
        assert target is not None and target.id == d
        assert _redo(tree) == d
        assert not tree.can_redo

    def test_redo_follows_the_most_recently_visited_child(
        self, linear: tuple[UndoTree, list[str]]
    ) -> None:
        tree, (a, b, c) = linear
        tree.undo()
        tree.undo()
        d = tree.add(_beat("d"), "regenerate")
        tree.switch(b)  # back to the older branch
        tree.undo()
        assert tree.current.id == a
        assert _redo(tree) == b
        assert _redo(tree) == c  # b remembers c
        tree.undo()
        tree.undo()
        tree.switch(d)
        tree.undo()
        assert _redo(tree) == d

    def test_switch_to_a_deep_node_repoints_redo_on_every_ancestor(self) -> None:
        tree = UndoTree()
        a = tree.add(1, "generate")
        b1 = tree.add(2, "generate")
        b1x = tree.add(3, "edit")
        tree.switch(a)
        b2 = tree.add(4, "regenerate")
        b2x = tree.add(5, "edit")
        tree.switch(b1x)
        assert tree.last_transition.undone == (tree.get(b2x), tree.get(b2))
        assert tree.last_transition.redone == (tree.get(b1), tree.get(b1x))
        tree.switch("n0")
        assert [_redo(tree) for _ in range(3)] == [a, b1, b1x]
        tree.switch(b2x)
        tree.switch("n0")
        assert [_redo(tree) for _ in range(3)] == [a, b2, b2x]

    def test_many_siblings_in_creation_order(self) -> None:
        tree = UndoTree()
        first = tree.add("v1", "generate")
        siblings = [first]
        for i in range(2, 6):
            tree.undo()
            siblings.append(tree.add(f"v{i}", "regenerate"))
        assert _ids(tree.siblings(first)) == siblings
        assert _ids(tree.children("n0")) == siblings
        assert [n.payload for n in tree.siblings()] == ["v1", "v2", "v3", "v4", "v5"]
        assert tree.siblings("n0") == [tree.root]
        assert tree.branch_position("n0") == (1, 1)

    def test_switch_to_the_current_node_is_a_no_op(
        self, linear: tuple[UndoTree, list[str]]
    ) -> None:
        tree, (_, _, c) = linear
        assert tree.switch(c).id == c
        assert tree.last_transition == Transition()


class TestTransition:
    def test_across_branches_lists_commits_to_revert_and_apply(self) -> None:
        tree = UndoTree()
        a = tree.add("a", "accept", commit_ids=["m-a"])
        b = tree.add("b", "accept", commit_ids=["m-b1", "m-b2"])
        tree.switch(a)
        c = tree.add("c", "generate")
        d = tree.add("d", "accept", commit_ids=["m-d"])
        plan = tree.transition(b)
        assert _ids(list(plan.undone)) == [d, c]
        assert _ids(list(plan.redone)) == [b]
        assert plan.commits_to_revert == ("m-d",)
        assert _ids(list(plan.commits_to_apply)) == [b]
        assert tree.current.id == d  # transition() is a query: nothing moved

    def test_to_an_ancestor_and_from_elsewhere(self, linear: tuple[UndoTree, list[str]]) -> None:
        tree, (a, b, c) = linear
        up = tree.transition("n0")
        assert _ids(list(up.undone)) == [c, b, a] and up.redone == ()
        assert up.commits_to_revert == ("m2", "m1")
        down = tree.transition(c, from_id="n0")
        assert down.undone == () and _ids(list(down.redone)) == [a, b, c]

    def test_set_commit_ids_after_a_recommit(self, linear: tuple[UndoTree, list[str]]) -> None:
        tree, (_, b, c) = linear
        updated = tree.set_commit_ids(c, ["m9"])
        assert updated.commit_ids == ("m9",) and tree.get(c).commit_ids == ("m9",)
        assert tree.get(c).payload == _beat("c")
        assert tree.set_commit_ids(b, []).commit_ids == ()
        with pytest.raises(InvalidInputError, match="root"):
            tree.set_commit_ids("n0", ["x"])


class TestImmutableHistory:
    def test_changing_the_callers_payload_does_not_change_history(self) -> None:
        tree = UndoTree()
        payload = _beat("original")
        node_id = tree.add(payload, "generate")
        payload["fields"]["events"].append("mutated")
        tree.get(node_id).payload["fields"]["events"].append("mutated too")
        assert tree.get(node_id).payload == _beat("original")

    def test_nodes_are_frozen(self, linear: tuple[UndoTree, list[str]]) -> None:
        tree, (_, _, c) = linear
        with pytest.raises(AttributeError):
            tree.get(c).commit_ids = ("x",)  # type: ignore[misc]
        tree.nodes.clear()
        assert len(tree) == 4


class TestErrors:
    @pytest.mark.parametrize("method", ["get", "switch", "siblings", "children", "path"])
    def test_unknown_ids(self, linear: tuple[UndoTree, list[str]], method: str) -> None:
        tree, _ = linear
        with pytest.raises(NotFoundError, match="n99") as info:
            getattr(tree, method)("n99")
        assert "tree.path()" in info.value.hint
        assert tree.current.id == "n3"

    def test_unknown_id_in_transition_and_commit_ids(
        self, linear: tuple[UndoTree, list[str]]
    ) -> None:
        tree, _ = linear
        with pytest.raises(NotFoundError):
            tree.transition("nope")
        with pytest.raises(NotFoundError):
            tree.set_commit_ids("nope", [])

    @pytest.mark.parametrize(
        ("payload", "kind", "kwargs", "message"),
        [
            ({1, 2}, "edit", {}, "JSON"),
            ({"x": float("nan")}, "edit", {}, "JSON"),
            (object(), "edit", {}, "JSON"),
            ("ok", "edit", {"when": object()}, "metadata"),
            ("ok", "", {}, "kind"),
            ("ok", "Edit", {}, "kind"),
            ("ok", "root", {}, "kind"),
            ("ok", "edit", {"commit_ids": "m1"}, "single string"),
            ("ok", "edit", {"commit_ids": ["m1", ""]}, "non-empty"),
        ],
    )
    def test_bad_add_changes_nothing(
        self, payload: Any, kind: str, kwargs: dict[str, Any], message: str
    ) -> None:
        tree = UndoTree()
        tree.add("first", "generate")
        before = tree.to_dict()
        with pytest.raises(InvalidInputError, match=message):
            tree.add(payload, kind, **kwargs)
        assert tree.to_dict() == before


def _branchy() -> UndoTree:
    tree = UndoTree(root_payload={"episode": 1})
    a = tree.add(_beat("가"), "generate", label="designed 1-1")
    tree.add(_beat("나"), "accept", commit_ids=["mem-1"])
    tree.switch(a)
    tree.add(_beat("다"), "regenerate", instruction="긴장감")
    tree.undo()
    return tree


class TestPersistence:
    def test_round_trip_through_json(self) -> None:
        tree = _branchy()
        data = json.loads(json.dumps(tree.to_dict(), ensure_ascii=False))
        again = UndoTree.from_dict(data)
        assert again.to_dict() == tree.to_dict()
        assert again.current.id == tree.current.id
        assert again.nodes == tree.nodes
        assert again.get("n3").meta == {"instruction": "긴장감"}
        assert again.get("n2").commit_ids == ("mem-1",)
        assert again.root.payload == {"episode": 1}

    def test_redo_memory_survives_a_round_trip(self) -> None:
        tree = _branchy()  # at n1, whose newest child is n3
        again = UndoTree.from_dict(tree.to_dict())
        assert _redo(again) == _redo(tree) == "n3"
        tree.switch("n2")
        tree.undo()
        again = UndoTree.from_dict(tree.to_dict())
        assert _redo(again) == "n2"

    def test_ids_keep_counting_after_a_round_trip(self) -> None:
        again = UndoTree.from_dict(_branchy().to_dict())
        assert again.add("x", "edit") == "n4"

    def _damaged(self, change: Any) -> dict[str, Any]:
        data = copy.deepcopy(_branchy().to_dict())
        change(data)
        return data

    @pytest.mark.parametrize(
        ("change", "detail"),
        [
            (lambda d: d.update(version=2), "version"),
            (lambda d: d.update(current="n42"), "current node"),
            (lambda d: d["nodes"][0].update(kind="edit"), "root"),
            (lambda d: d["nodes"].pop(0), "unknown parent"),
            (lambda d: d["nodes"][2].update(parent="n9"), "unknown parent"),
            (lambda d: d["nodes"][1].update(parent="n3"), "unknown parent"),  # a cycle
            (lambda d: d["nodes"].append(dict(d["nodes"][1])), "duplicate"),
            (lambda d: d["nodes"].reverse(), "unknown parent"),
            (lambda d: d["nodes"].insert(2, d["nodes"].pop(3)), "order"),
            (lambda d: d["nodes"][1].update(id="x"), "id/seq"),
            (lambda d: d["last_child"].update(n0="n3"), "redo pointer"),
            (lambda d: d["nodes"][1].update(meta=[]), "metadata"),
            (lambda d: d.pop("nodes"), "nodes"),
        ],
    )
    def test_damaged_data_is_a_clear_error(self, change: Any, detail: str) -> None:
        with pytest.raises(InvalidInputError, match="damaged") as info:
            UndoTree.from_dict(self._damaged(change))
        assert detail in str(info.value)
        assert "backup" in info.value.hint

    def test_not_a_mapping(self) -> None:
        with pytest.raises(InvalidInputError, match="damaged"):
            UndoTree.from_dict([])  # type: ignore[arg-type]
