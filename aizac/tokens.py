"""Offline token counting.

Exact tokenizers either download their vocabularies at run time (tiktoken, Hugging Face) or need
the local model loaded, so budgets use a deterministic estimate instead: one token per Hangul,
CJK or kana character, about one token per four Latin letters, one per digit group and per
punctuation mark. It overestimates English slightly, which is the safe side for a budget.
"""

from __future__ import annotations

import re

_PIECES = re.compile(
    r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
    r"|[^\W\d_]+"
    r"|\d+"
    r"|[^\w\s]"
)
_LATIN_CHARS_PER_TOKEN = 4


def count_tokens(text: str) -> int:
    """Estimated number of model tokens in ``text`` (0 for empty text)."""
    total = 0
    for piece in _PIECES.findall(text):
        if len(piece) == 1:
            total += 1
        elif piece[0].isdigit():
            total += (len(piece) + 2) // 3
        else:
            total += (len(piece) + _LATIN_CHARS_PER_TOKEN - 1) // _LATIN_CHARS_PER_TOKEN
    return total


def truncate_to_tokens(text: str, budget: int) -> str:
    """The longest prefix of ``text`` whose estimate fits ``budget`` tokens (cut at a piece)."""
    if budget <= 0:
        return ""
    if count_tokens(text) <= budget:
        return text
    used = 0
    end = 0
    for match in _PIECES.finditer(text):
        cost = count_tokens(match.group())
        if used + cost > budget:
            break
        used += cost
        end = match.end()
    return text[:end].rstrip()
