"""What a file keeps of a research variant, so that ``load`` gives it back as itself.

A SuperBPE, BoundlessBPE or parity-aware tokenizer is an ordinary BPE tokenizer for encoding, and
every format holds it as one. What makes it the variant is not in any format: where stage one
ends (``transition``), what it was asked for, its rules, or which language each merge served. The
save methods write that in the bpe-lab sidecar (sidecar.py's ``variant_json``) under the key
``"variant"``::

    "variant": {"name": "superbpe", "stage_one_pattern": "…", "transition": 40,
                "asked_transition": 40, "stage_two": "authors"}
    "variant": {"name": "boundless", "stage_one_pattern": "…", "transition": 97,
                "phase_one_merges": 144, "asked_merges": 144, "stopping": "authors"}
    "variant": {"name": "parity", "languages": ["en", "el"], "served": ["en", null, …]}

and ``load`` turns the tokenizer it read back into the variant's class with those attributes
(``as_variant``), after checking each against the file's merges; a bad value is a ValueError that
names the key.
"""

from __future__ import annotations

from typing import Any

from .boundless import STOPPING_RULES, BoundlessTokenizer
from .parity import ParityTokenizer
from .superbpe import STAGE_TWO_RULES, SuperBPETokenizer
from .text import shorten

VARIANT_NAMES = ("superbpe", "boundless", "parity")


def _whole(entry: dict, key: str, where: str, most: int | None = None) -> int:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (
            most is not None and value > most):
        bound = f" from 0 to {most:,}" if most is not None else " of 0 or more"
        raise ValueError(f"{where}.{key} should be a whole number{bound}, found {shorten(value)}")
    return value


def _choice(entry: dict, key: str, where: str, choices: tuple[str, ...]) -> str:
    value = entry.get(key)
    if value not in choices:
        raise ValueError(f"{where}.{key} should be one of {', '.join(choices)}, found"
                         f" {shorten(value)}")
    return value


def as_variant(tok: Any, entry: object, name: str) -> Any:
    """``tok`` (read from a file) as the variant the sidecar ``name``'s ``entry`` describes."""
    where = f"{name}: key 'variant'"
    if not isinstance(entry, dict):
        raise ValueError(f"{where} should be an object, found {shorten(entry)}")
    kind = _choice(entry, "name", where, VARIANT_NAMES)
    merges = tok.num_merges
    fields: dict[str, Any] = {}
    if kind in ("superbpe", "boundless"):
        pattern = entry.get("stage_one_pattern")
        if not isinstance(pattern, str):
            raise ValueError(f"{where}.stage_one_pattern should be a str, found {shorten(pattern)}")
        fields = {"stage_one_pattern": pattern,
                  "transition": _whole(entry, "transition", where, merges)}
        if kind == "superbpe":
            cls = SuperBPETokenizer
            fields["asked_transition"] = _whole(entry, "asked_transition", where)
            fields["stage_two"] = _choice(entry, "stage_two", where, STAGE_TWO_RULES)
        else:
            cls = BoundlessTokenizer
            fields["phase_one_merges"] = _whole(entry, "phase_one_merges", where)
            fields["asked_merges"] = _whole(entry, "asked_merges", where)
            fields["stopping"] = _choice(entry, "stopping", where, STOPPING_RULES)
    else:
        cls = ParityTokenizer
        languages, served = entry.get("languages"), entry.get("served")
        if not (isinstance(languages, list) and all(isinstance(x, str) for x in languages)):
            raise ValueError(f"{where}.languages should be a list of names, found"
                             f" {shorten(languages)}")
        if not (isinstance(served, list) and len(served) == merges
                and all(x is None or x in languages for x in served)):
            raise ValueError(f"{where}.served should list, for each of the file's {merges:,}"
                             " merges, one of the languages or null (a global merge), found"
                             f" {shorten(served)}")
        fields = {"languages": list(languages), "served": list(served)}
    out = object.__new__(cls)
    out.__dict__.update(vars(tok))
    out.__dict__.update(fields)
    if kind == "boundless":  # SuperBPE's settings are not BoundlessBPE's
        out.__dict__.pop("asked_transition", None)
        out.__dict__.pop("stage_two", None)
    return out
