"""The one rule for special-token text (such as ``<|endoftext|>``) in the text a learner types,
and its words.

A tokenizer's special tokens have a text, and a learner may type that text. tiktoken asks which
reading is meant (``allowed_special`` / ``disallowed_special``); the app asks once, in the
sidebar (session key ``special_rule``, kept by ``ui.kit.state``), and every view that encodes the
learner's text follows the same choice:

* ``"text"`` (the default): the characters are ordinary text, as ``encode(text,
  disallowed_special=())`` reads them (minbpe's ``allowed_special="none"``);
* ``"special"``: each is its special token, one id, as ``encode(text, allowed_special="all")``.

A chat format's own special tokens (the ``<|im_start|>`` around a message) are not typed text:
they stay special whatever the rule. This module is page-free (no Streamlit); the session's
choice is read through ``ui.kit.state.special_rule`` / ``allowed_special``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

TEXT, SPECIAL = "text", "special"
DEFAULT_RULE = TEXT
RULES = {TEXT: "Read as text", SPECIAL: "Read as special tokens"}  # the sidebar's choice
# what each rule passes to encode() as allowed_special ("none": the text is ordinary text, and
# no special-token text is refused)
ALLOWED = {TEXT: "none", SPECIAL: "all"}
SHORT = {TEXT: "special tokens read as text", SPECIAL: "special-token text read as special tokens"}
HOW = {TEXT: "read as text", SPECIAL: "read as the special token"}
RULE_HELP = ("Text such as <|endoftext|>, the text of a special token, in what you type. "
             "Read as text (the default): its characters are tokens like any others, as "
             "tiktoken's encode(text, disallowed_special=()) reads them. Read as special "
             "tokens: each becomes its one special token, as encode(text, "
             "allowed_special=\"all\"). Every page follows this choice.")


def rule_or_default(rule: object) -> str:
    """A known rule, or the default (a session may hold anything)."""
    return rule if isinstance(rule, str) and rule in RULES else DEFAULT_RULE


def allowed_for(rule: object) -> str:
    """What ``encode``'s ``allowed_special`` is under ``rule``.

    >>> allowed_for("text"), allowed_for("special"), allowed_for(None)
    ('none', 'all', 'none')
    """
    return ALLOWED[rule_or_default(rule)]


def encode_by_rule(tok, text: str, allowed_special: str = "none") -> list[int]:
    """``tok``'s ids of ``text``, special-token text read by ``allowed_special`` ("none": as
    text, by ``encode_ordinary``, the same ids as ``encode(text, disallowed_special=())``;
    "all": as the special token). For a view that does not draw from the session's cache.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.register_special_tokens({"<|x|>": 256})
    >>> encode_by_rule(tok, "a<|x|>"), encode_by_rule(tok, "a<|x|>", "all")
    ([97, 60, 124, 120, 124, 62], [97, 256])
    """
    if allowed_special == "none":
        return tok.encode_ordinary(text)
    return tok.encode(text, allowed_special=allowed_special)


def specials_of(*tokenizers: object) -> list[str]:
    """The special tokens' texts of some tokenizers (their aliases too), each once, in order."""
    out: dict[str, None] = {}
    for tok in tokenizers:
        for table in (getattr(tok, "special_tokens", None), getattr(tok, "special_aliases", None)):
            out.update(dict.fromkeys(table or ()))
    return list(out)


def found_in(text: str, specials: Iterable[str]) -> list[tuple[str, int]]:
    """Which special-token texts ``text`` holds, and how many times each, in order of first
    appearance.

    >>> found_in("a<|endoftext|>b<|endoftext|><|fim_prefix|>", ["<|fim_prefix|>", "<|endoftext|>"])
    [('<|endoftext|>', 2), ('<|fim_prefix|>', 1)]
    """
    hits = [(text.find(s), s, text.count(s)) for s in specials if s and s in text]
    return [(s, n) for _, s, n in sorted(hits)]


def _names(labels: Sequence[str]) -> str:
    """``["a"]`` -> "a"; ``["a", "b", "c"]`` -> "a, b and c"."""
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


def rule_note(rule: object, text: str, specials: Iterable[str], limit: int = 3,
              readers: Mapping[str, Iterable[str]] | None = None) -> str:
    """The rule in a learner's words, and the special-token texts ``text`` holds (at most
    ``limit`` named): plain text, for ``textContent`` (``md_escape`` it for Markdown).

    ``readers`` (label -> that tokenizer's special-token texts), for a note over several
    tokenizers: under "special" a text is the special token only for the tokenizers that have
    it, and text for the others, and the note says which is which.

    >>> rule_note("text", "hi", ["<|endoftext|>"])
    'special tokens read as text'
    >>> rule_note("text", "a<|endoftext|>b<|endoftext|>", ["<|endoftext|>"])
    'special tokens read as text · <|endoftext|> appears 2 times; read as text'
    >>> rule_note("special", "<|endoftext|>", ["<|endoftext|>"])
    'special-token text read as special tokens · <|endoftext|> appears 1 time; read as the special token'
    """
    rule = rule_or_default(rule)
    found = found_in(text, specials)
    if not found:
        return SHORT[rule]
    said = [f"{s} appears {n:,} time{'s' if n != 1 else ''}" for s, n in found[:limit]]
    if len(found) > limit:
        said.append(f"{len(found) - limit} other special tokens' text too")
    mixed = _by_reader(rule, found[:limit], readers)
    if mixed:
        return f"{SHORT[rule]} · " + "; ".join(f"{what}: {how}" for what, how in zip(said, mixed))
    return f"{SHORT[rule]} · {', '.join(said)}; {HOW[rule]}"


def _by_reader(rule: str, found: list[tuple[str, int]],
               readers: Mapping[str, Iterable[str]] | None) -> list[str] | None:
    """How each found text is read, tokenizer by tokenizer, when they differ (None when every
    tokenizer reads every found text the same way: the one rule then says it)."""
    if rule != SPECIAL or not readers:
        return None
    has = {label: set(texts) for label, texts in readers.items()}
    out = []
    for s, _ in found:
        special = [label for label, texts in has.items() if s in texts]
        plain = [label for label in has if label not in special]
        if not plain:
            out.append(HOW[SPECIAL])
        elif not special:
            out.append(f"{HOW[TEXT]} (not a special token of {_names(plain)})")
        else:
            have = "has" if len(plain) == 1 else "have"
            out.append(f"the special token for {_names(special)}; text for {_names(plain)}, "
                       f"which {have} no such special token")
    return None if all(how == HOW[SPECIAL] for how in out) else out
