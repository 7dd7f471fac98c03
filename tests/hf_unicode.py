"""Where Hugging Face's normalizers and Python's Unicode tables disagree, measured on every code
point with the ``tokenizers`` library itself (a test-only reference).

Hugging Face normalizes with the Rust crates ``unicode-normalization-alignments`` (old Unicode
tables: characters assigned since then are kept as they are) and Rust's own ``to_lowercase``
(newer tables than Python 3.11's Unicode 14). ``bpe_core.pipeline`` carries the differences as
small tables; ``tests/core/test_pipeline.py`` checks them against this sweep, and
``python tests/hf_unicode.py`` prints them in the form ``bpe_core/pipeline.py`` stores.
"""

from __future__ import annotations

import unicodedata

EVERY_CHAR = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def normalize_kept() -> set[str]:
    """Characters Hugging Face's NFC/NFD/NFKC/NFKD leave alone where Python's tables act: their
    decomposition, their combining class, or their part in a composition is newer than HF's."""
    from tokenizers import normalizers

    nfkd, nfd = normalizers.NFKD(), normalizers.NFD()
    kept = {c for c in EVERY_CHAR if nfkd.normalize_str(c) != unicodedata.normalize("NFKD", c)}
    for c in EVERY_CHAR:
        if unicodedata.combining(c):  # HF sees combining class 0 if these do not reorder
            for probe in ("a\u0345" + c, "a" + c + "\u0334"):
                if nfd.normalize_str(probe) != unicodedata.normalize("NFD", probe):
                    kept.add(c)
    for c in [c for c in EVERY_CHAR if nfd.normalize_str(c) != unicodedata.normalize("NFD", c)]:
        kept.add(c)
        kept.update(chr(int(part, 16)) for part in unicodedata.decomposition(c).split())
    return kept


def lowercase_table() -> dict[str, str]:
    """Characters whose lowercase differs: Hugging Face lowercases one character at a time with
    Rust's newer tables (and so no final-sigma rule)."""
    from tokenizers import normalizers

    lower = normalizers.Lowercase()
    return {c: lower.normalize_str(c) for c in EVERY_CHAR if lower.normalize_str(c) != c.lower()}


def accent_table() -> tuple[set[str], set[str]]:
    """(marks HF's StripAccents keeps though Python calls them marks, non-marks it removes)."""
    from tokenizers import normalizers

    strip = normalizers.StripAccents()
    keep, drop = set(), set()
    for c in EVERY_CHAR:
        mark = unicodedata.category(c).startswith("M")
        removed = strip.normalize_str(c) == ""
        if mark and not removed:
            keep.add(c)
        elif removed and not mark:
            drop.add(c)
    return keep, drop


def ranges(chars: set[str]) -> str:
    """``"07fd 0898-089f ..."``: code points and runs, as ``bpe_core.pipeline`` stores them."""
    points = sorted(map(ord, chars))
    out, i = [], 0
    while i < len(points):
        j = i
        while j + 1 < len(points) and points[j + 1] == points[j] + 1:
            j += 1
        out.append(f"{points[i]:04x}" if i == j else f"{points[i]:04x}-{points[j]:04x}")
        i = j + 1
    return " ".join(out)


if __name__ == "__main__":
    print("NORMALIZE_KEPT =", repr(ranges(normalize_kept())))
    print("LOWERCASE =", repr(" ".join(f"{ord(a):04x}:{''.join(f'{ord(b):04x}' for b in z)}"
                                       for a, z in sorted(lowercase_table().items()))))
    keep, drop = accent_table()
    print("ACCENTS_KEPT =", repr(ranges(keep)))
    print("ACCENTS_DROPPED =", repr(ranges(drop)))
