"""The embedded model's speed on this machine, for the reading estimate's time
(:data:`aizac.application.reading_estimate.EMBEDDED_SPEED`).

One prompt the size of a scene's read call (~1,000 prompt tokens) and a reply of up to
``--max-tokens`` tokens, ``--runs`` times, through xllamacpp as aizac's local provider runs it
(n_ctx 4096, one slot); prints llama.cpp's own timings: prompt tokens/s (prefill) and
generated tokens/s, the medians. ``--json``: the reply constrained to a small JSON schema
(the embedded model's structured calls are grammar-constrained). Usage::

    nice -n 10 python bench/reading_speed.py [--runs 3] [--max-tokens 128] [--json]

Measured 2026-12-07 on the development machine (2 cores shared with other jobs): free text
193 prompt and 49.3 reply tokens/s (load ~3), ``--json`` 205 and 58.9 (load ~2).
"""

from __future__ import annotations

import argparse
import statistics
import time

PARAGRAPH = ("Mira walked through the north gate of the royal city. The wind was cold and the "
             "sky hung low over the walls, and the guards did not look at her twice. ")

SCHEMA = {"type": "object", "required": ["location", "characters", "events"],
          "additionalProperties": False,
          "properties": {"location": {"type": "string", "maxLength": 60},
                         "characters": {"type": "array", "items": {"type": "string"}},
                         "events": {"type": "array", "items": {"type": "string"}}}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="one short run (tests/test_benches)")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.max_tokens = 1, 8
    repeat = 2 if args.smoke else 30  # a scene of ~1,000 tokens; the smoke only runs it
    import xllamacpp

    from aizac.llm.providers.local import resolve_model_path
    from aizac.settings import Settings

    params = xllamacpp.CommonParams()
    params.model.path = str(resolve_model_path(Settings()))
    params.n_ctx = 4096
    params.n_parallel = 1
    params.verbosity = -1
    params.warmup = False
    server = xllamacpp.Server(params)
    prefill, generate, walls = [], [], []
    for i in range(args.runs):
        scene = f"({i}) " + PARAGRAPH * repeat  # a new start each run: no cached prefix reused
        request = {"messages": [{"role": "user", "content": scene + "\nSummarise the scene."}],
                   "max_tokens": args.max_tokens, "temperature": 0.7, "seed": 7 + i}
        if args.json:
            request["response_format"] = {"type": "json_object", "schema": SCHEMA}
        started = time.perf_counter()
        out = server.handle_chat_completions(request)
        walls.append(time.perf_counter() - started)
        timings = out.get("timings") or {}
        prefill.append(float(timings.get("prompt_per_second", 0.0)))
        generate.append(float(timings.get("predicted_per_second", 0.0)))
        usage = out["usage"]
        print(f"run {i + 1}: prompt {usage['prompt_tokens']} tok, reply "
              f"{usage['completion_tokens']} tok, {walls[-1]:.2f} s, prefill "
              f"{prefill[-1]:.0f} tok/s, generate {generate[-1]:.1f} tok/s")
    print(f"median: prefill {statistics.median(prefill):.0f} tok/s, generate "
          f"{statistics.median(generate):.1f} tok/s")


if __name__ == "__main__":
    main()
