"""Published API prices as data (``prices.toml`` beside this module) and what a run costs.

Pure apart from reading the package's own TOML: :func:`load_prices` returns the dated rows,
:func:`cost` prices token counts with or without the provider's prompt cache. The rows carry
their date and source; a price is a fact of a day, so the bench prints both with every figure.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from aizac.errors import InvalidInputError


@dataclass(frozen=True)
class Price:
    """One model's published price, US dollars per 1M tokens."""

    provider: str
    model: str
    input: float
    cached_input: float
    cache_write: float
    output: float
    as_of: str
    source: str


@lru_cache(maxsize=1)
def load_prices() -> tuple[Price, ...]:
    """Every row of ``prices.toml``, in file order."""
    with (resources.files("aizac.llm") / "prices.toml").open("rb") as handle:
        rows = tomllib.load(handle).get("price", [])
    return tuple(Price(**{k: row[k] for k in Price.__dataclass_fields__}) for row in rows)


def price_of(provider: str, model: str) -> Price:
    """The newest row for ``provider``/``model`` (``as_of`` is an ISO date)."""
    rows = [p for p in load_prices() if (p.provider, p.model) == (provider, model)]
    if not rows:
        known = ", ".join(f"{p.provider}:{p.model}" for p in load_prices())
        raise InvalidInputError("error.prices.unknown", model=f"{provider}:{model}",
                                known=known)
    return max(rows, key=lambda p: p.as_of)


def cost(price: Price, *, prompt: int, output: int, cached: int = 0, written: int = 0) -> float:
    """US dollars for ``prompt`` prompt tokens of which ``cached`` were cache reads and
    ``written`` cache writes (charged at ``cache_write`` instead of ``input`` where the
    provider prices writes), and ``output`` completion tokens."""
    cached = min(cached, prompt)
    written = min(written, prompt - cached)
    write_rate = price.cache_write or price.input
    dollars = ((prompt - cached - written) * price.input + cached * price.cached_input
               + written * write_rate + output * price.output)
    return dollars / 1_000_000


__all__ = ["Price", "cost", "load_prices", "price_of"]
