"""notebooks/forgetting_curve.ipynb runs headless on the embedded defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "forgetting_curve.ipynb"


def test_forgetting_curve_notebook_executes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("MPLBACKEND", "Agg")  # the kernel inherits it: no display needed
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    client = nbclient.NotebookClient(
        nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    text = "\n".join(
        out.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.get("output_type") == "stream"
    )
    assert "Story              strength  10.0 -> lives   23.0 turns unrecalled" in text
    assert "recalled every 15 turns              live on 121 of 121 turns" in text
    assert "relation now: Mira trusts Kai with her life." in text
    assert "pinned" in text
