"""The undo/redo cache tree of the beat editor (pure: no I/O, no clock).

Every generation, edit, regeneration and acceptance is a :class:`Node` holding a JSON payload
(for instance the beat's fields and prose at that moment). Nodes form a tree:

* :meth:`UndoTree.add` appends a child of the current node and moves to it; adding after an
  undo therefore starts a sibling branch and keeps the undone one.
* :meth:`UndoTree.undo` moves to the parent; :meth:`UndoTree.redo` moves to the child most
  recently visited or created from here, so undo followed by redo always returns to where the
  writer was.
* :meth:`UndoTree.switch` jumps to any node (a sibling branch, usually) and makes the path to
  it the one that redo follows from each ancestor.

Nodes of kind ``"accept"`` can record ``commit_ids`` (memory ids the acceptance committed). The
tree never touches memory: :meth:`UndoTree.transition` tells the caller, *before* it moves,
which nodes a move would leave (whose commits to revert) and enter (whose commits to re-apply),
so a failed revert can leave the tree where it was. :attr:`UndoTree.last_transition` reports
the same for the move just made.

Payloads and metadata are stored as JSON text, so history cannot be changed by mutating an
object the caller still holds. ``to_dict``/``from_dict`` round-trip the whole tree, including
which branch redo follows.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aizac.errors import InvalidInputError, NotFoundError

FORMAT_VERSION = 1
ROOT_KIND = "root"
_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}")


def _to_json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as e:
        raise InvalidInputError("error.tree.not_json", what=what, cause=str(e)) from e


def _check_kind(kind: Any) -> str:
    if not isinstance(kind, str) or not _KIND.fullmatch(kind) or kind == ROOT_KIND:
        raise InvalidInputError("error.tree.kind", kind=repr(kind))
    return kind


def _check_commit_ids(commit_ids: Any) -> tuple[str, ...]:
    if isinstance(commit_ids, str) or not isinstance(commit_ids, Iterable):
        raise InvalidInputError("error.tree.commit_ids")
    ids = tuple(commit_ids)
    if not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("error.tree.commit_id")
    return ids


@dataclass(frozen=True)
class Node:
    """One state of the editor.

    Attributes:
        id: Stable id (``"n0"`` is the root).
        parent_id: The parent's id; ``None`` for the root.
        kind: What produced this state (``"generate"``, ``"edit"``, ``"accept"``...).
        seq: Creation order (0 for the root).
        commit_ids: Memory ids committed when this state was reached (accepts).
        payload_json: The payload as JSON text; read it through :attr:`payload`.
        meta_json: Extra metadata as JSON text; read it through :attr:`meta`.
    """

    id: str
    parent_id: str | None
    kind: str
    seq: int
    commit_ids: tuple[str, ...]
    payload_json: str
    meta_json: str = "{}"

    @property
    def payload(self) -> Any:
        """A fresh copy of the payload (changing it does not change history)."""
        return json.loads(self.payload_json)

    @property
    def meta(self) -> dict[str, Any]:
        """A fresh copy of the metadata given to :meth:`UndoTree.add`."""
        value: dict[str, Any] = json.loads(self.meta_json)
        return value

    @property
    def is_root(self) -> bool:
        return self.parent_id is None


@dataclass(frozen=True)
class Transition:
    """What moving from one node to another leaves and enters.

    Attributes:
        undone: Nodes left behind, nearest first (current node, its parent, ...), stopping
            before the common ancestor.
        redone: Nodes entered, top first, ending with the target.
    """

    undone: tuple[Node, ...] = ()
    redone: tuple[Node, ...] = ()

    @property
    def commits_to_revert(self) -> tuple[str, ...]:
        """Memory ids committed by the nodes being left, in the order to revert them."""
        return tuple(i for node in self.undone for i in reversed(node.commit_ids))

    @property
    def commits_to_apply(self) -> tuple[Node, ...]:
        """Entered nodes that had committed memory (the caller re-commits them, in order)."""
        return tuple(node for node in self.redone if node.commit_ids)


class UndoTree:
    """A tree of editor states with a current position; see the module docstring."""

    def __init__(self, root_payload: Any = None) -> None:
        root = Node("n0", None, ROOT_KIND, 0, (), _to_json(root_payload, "root payload"))
        self._nodes: dict[str, Node] = {root.id: root}
        self._children: dict[str, list[str]] = {root.id: []}
        self._last_child: dict[str, str] = {}
        self._current = root.id
        self._next_seq = 1
        self.last_transition = Transition()

    # --- reading -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def get(self, node_id: str) -> Node:
        """The node with ``node_id``; :class:`NotFoundError` if there is none."""
        try:
            return self._nodes[node_id]
        except (KeyError, TypeError):
            raise NotFoundError("error.tree.no_node", id=repr(node_id)) from None

    @property
    def nodes(self) -> dict[str, Node]:
        """Every node by id, in creation order (a copy: changing it changes nothing)."""
        return dict(self._nodes)

    @property
    def root(self) -> Node:
        return self._nodes["n0"]

    @property
    def current(self) -> Node:
        return self._nodes[self._current]

    @property
    def can_undo(self) -> bool:
        return self._current != self.root.id

    @property
    def can_redo(self) -> bool:
        return bool(self._children[self._current])

    def children(self, node_id: str) -> list[Node]:
        """The children of a node in creation order."""
        self.get(node_id)
        return [self._nodes[c] for c in self._children[node_id]]

    def siblings(self, node_id: str | None = None) -> list[Node]:
        """All children of the node's parent in creation order, the node included.

        ``node_id`` defaults to the current node; the root's only "sibling" is itself.
        """
        node = self.get(self._current if node_id is None else node_id)
        if node.parent_id is None:
            return [node]
        return self.children(node.parent_id)

    def branch_position(self, node_id: str | None = None) -> tuple[int, int]:
        """``(position, count)`` of a node among its siblings, 1-based (for "2/3" labels)."""
        node = self.get(self._current if node_id is None else node_id)
        ids = [n.id for n in self.siblings(node.id)]
        return ids.index(node.id) + 1, len(ids)

    def path(self, node_id: str | None = None) -> list[Node]:
        """The nodes from the root down to ``node_id`` (default: the current node)."""
        node: Node | None = self.get(self._current if node_id is None else node_id)
        chain: list[Node] = []
        while node is not None:
            chain.append(node)
            node = self._nodes[node.parent_id] if node.parent_id is not None else None
        return chain[::-1]

    def redo_target(self) -> Node | None:
        """The node :meth:`redo` would move to, or ``None``."""
        child = self._last_child.get(self._current)
        return self._nodes[child] if child is not None else None

    def transition(self, target_id: str, from_id: str | None = None) -> Transition:
        """What moving from ``from_id`` (default: current) to ``target_id`` leaves and enters."""
        source = self.path(from_id)
        target = self.path(target_id)
        common = 0
        while common < min(len(source), len(target)) and source[common].id == target[common].id:
            common += 1
        return Transition(tuple(reversed(source[common:])), tuple(target[common:]))

    # --- changing ----------------------------------------------------------------------

    def add(
        self,
        payload: Any,
        kind: str,
        *,
        commit_ids: Iterable[str] = (),
        **meta: Any,
    ) -> str:
        """Add a child of the current node, move to it and return its id.

        Args:
            payload: JSON-serialisable state (copied; later changes to it are not seen).
            kind: What produced it: ``"generate"``, ``"edit"``, ``"regenerate"``, ``"accept"``...
            commit_ids: Memory ids committed on reaching this state.
            **meta: Extra JSON-serialisable facts (instruction, episode, beat index...).

        Raises:
            InvalidInputError: payload/meta not JSON, bad kind or commit ids; nothing changes.
        """
        node = Node(
            id=f"n{self._next_seq}",
            parent_id=self._current,
            kind=_check_kind(kind),
            seq=self._next_seq,
            commit_ids=_check_commit_ids(commit_ids),
            payload_json=_to_json(payload, "payload"),
            meta_json=_to_json(meta, "metadata"),
        )
        self._nodes[node.id] = node
        self._children[node.id] = []
        self._children[self._current].append(node.id)
        self._last_child[self._current] = node.id
        self._current = node.id
        self._next_seq += 1
        self.last_transition = Transition((), (node,))
        return node.id

    def undo(self) -> Node | None:
        """Move to the parent and return it; ``None`` (and no change) at the root."""
        node = self.current
        if node.parent_id is None:
            return None
        self._last_child[node.parent_id] = node.id
        self._current = node.parent_id
        self.last_transition = Transition((node,), ())
        return self.current

    def redo(self) -> Node | None:
        """Move to the most recently visited/created child and return it; ``None`` if none."""
        child = self.redo_target()
        if child is None:
            return None
        self._current = child.id
        self.last_transition = Transition((), (child,))
        return child

    def switch(self, node_id: str) -> Node:
        """Move to any node; redo from each of its ancestors will follow this path."""
        self.get(node_id)
        self.last_transition = self.transition(node_id)
        chain = self.path(node_id)
        for parent, child in itertools.pairwise(chain):
            self._last_child[parent.id] = child.id
        self._current = node_id
        return self.current

    def set_commit_ids(self, node_id: str, commit_ids: Iterable[str]) -> Node:
        """Replace a node's commit ids (e.g. after re-committing it on redo)."""
        node = self.get(node_id)
        if node.is_root:
            raise InvalidInputError("error.tree.root_commits")
        updated = Node(
            node.id,
            node.parent_id,
            node.kind,
            node.seq,
            _check_commit_ids(commit_ids),
            node.payload_json,
            node.meta_json,
        )
        self._nodes[node_id] = updated
        return updated

    # --- persistence -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot; :meth:`from_dict` rebuilds an equal tree."""
        return {
            "version": FORMAT_VERSION,
            "current": self._current,
            "next_seq": self._next_seq,
            "last_child": dict(sorted(self._last_child.items())),
            "nodes": [
                {
                    "id": n.id,
                    "parent": n.parent_id,
                    "kind": n.kind,
                    "seq": n.seq,
                    "commit_ids": list(n.commit_ids),
                    "payload": n.payload,
                    "meta": n.meta,
                }
                for n in sorted(self._nodes.values(), key=lambda n: n.seq)
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UndoTree:
        """Rebuild a tree saved with :meth:`to_dict`.

        Raises:
            InvalidInputError: the data is not a valid saved tree (wrong version, unknown or
                duplicate ids, a cycle, a missing current node...).
        """
        try:
            return cls._from_dict(data)
        except InvalidInputError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise _damaged(f"{type(e).__name__}: {e}") from e

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> UndoTree:
        if not isinstance(data, Mapping) or data.get("version") != FORMAT_VERSION:
            raise _damaged(f"expected version {FORMAT_VERSION}")
        tree = cls.__new__(cls)
        tree._nodes, tree._children, tree._last_child = {}, {}, {}
        last_seq = -1
        for raw in data["nodes"]:
            parent = raw["parent"]
            seq = raw["seq"]
            if not isinstance(seq, int) or isinstance(seq, bool) or raw["id"] != f"n{seq}":
                raise _damaged(f"bad id/seq {raw.get('id')!r}/{seq!r}")
            if raw["id"] in tree._nodes:
                raise _damaged(f"duplicate node {raw['id']!r}")
            if seq <= last_seq:
                raise _damaged(f"node {raw['id']!r} is out of creation order")
            last_seq = seq
            if parent is None:
                if seq != 0 or raw["kind"] != ROOT_KIND or tree._nodes:
                    raise _damaged("the root must be the first node, n0, of kind 'root'")
                kind = ROOT_KIND
            else:
                if parent not in tree._nodes:  # parents come first: no cycles, no orphans
                    raise _damaged(f"node {raw['id']!r} has unknown parent {parent!r}")
                kind = _check_kind(raw["kind"])
                tree._children[parent].append(raw["id"])
            meta = raw.get("meta", {})
            if not isinstance(meta, dict):
                raise _damaged(f"node {raw['id']!r} has non-object metadata")
            node = Node(
                raw["id"],
                parent,
                kind,
                seq,
                _check_commit_ids(raw.get("commit_ids", [])),
                _to_json(raw.get("payload"), "payload"),
                _to_json(meta, "metadata"),
            )
            tree._nodes[node.id] = node
            tree._children[node.id] = []
        if "n0" not in tree._nodes:
            raise _damaged("no root node")
        for parent, child in data.get("last_child", {}).items():
            if child not in tree._nodes or tree._nodes[child].parent_id != parent:
                raise _damaged(f"redo pointer {parent!r} -> {child!r} is not a parent/child")
            tree._last_child[parent] = child
        for parent, kids in tree._children.items():
            if kids and parent not in tree._last_child:
                tree._last_child[parent] = kids[-1]
        current = data["current"]
        if current not in tree._nodes:
            raise _damaged(f"current node {current!r} does not exist")
        tree._current = current
        tree._next_seq = max(int(data.get("next_seq", 0)), last_seq + 1)
        tree.last_transition = Transition()
        return tree


def _damaged(detail: str) -> InvalidInputError:
    return InvalidInputError("error.tree.damaged", detail=detail)
