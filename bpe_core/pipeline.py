"""What a Hugging Face ``tokenizer.json`` does to text before BPE, in plain Python: normalizers,
pre-tokenizer splits, ByteLevel's prefix space, and added tokens with their flags.

Hugging Face encodes a text in this order (``tokenizers``' ``encode(text, add_special_tokens=False)``):

1. cut out the added tokens matched on the raw text (``normalized: false``; special tokens
   usually are), leftmost-longest, honouring ``single_word``, ``lstrip`` and ``rstrip``;
2. normalize each piece left (NFKC, Lowercase, Replace, Prepend...), then cut out the added
   tokens matched on normalized text (``normalized: true``);
3. pre-tokenize each piece (Split, Digits, Punctuation... then ByteLevel, which may put a space
   before every piece it is given and split with GPT-2's regex);
4. BPE on each piece's UTF-8 bytes (with ``ignore_merges``, a piece that is a whole token
   is that token).

``Pipeline`` holds steps 1-3 (and the flag of step 4) for ``Tokenizer.chunks``. Everything a file
may say that would change ids and is not here is refused by ``from_hf_json`` with the key named.

Unicode tables differ between Python 3.11 (Unicode 14) and the Rust crates Hugging Face uses: its
normalization tables are older, its lowercase tables newer. The few hundred characters where they
disagree are listed below (measured on every code point by ``tests/hf_unicode.py``) and treated
as Hugging Face treats them.
"""

from __future__ import annotations

import functools
import time
import unicodedata
from collections.abc import Callable
from typing import Any, NamedTuple

import regex

from .decoders import Decoder
from .oniguruma import from_oniguruma, unguarded
from .patterns import BYTE_LEVEL_PATTERN  # noqa: F401 - ByteLevel's regex: read from here too

# -- where Python's Unicode tables and Hugging Face's disagree (see tests/hf_unicode.py) --------

# characters NFC/NFD/NFKC/NFKD leave as they are in Hugging Face (newer than its tables)
NORMALIZE_KEPT = (
    "07fd 0898-089f 08ca-08d3 09fe 0c3c 0d3b-0d3c 0eba 1715 1abf-1ace 1df6-1dfa 32ff a7f2-a7f4 "
    "a82c ab69 10781-10785 10787-107b0 107b2-107ba 10d24-10d27 10eab-10eac 10f46-10f50 "
    "10f82-10f85 11070 1133b 1145e 11839-1183a 11930 11935 11938 1193d-1193e 11943 119e0 11a34 "
    "11a47 11a99 11d42 11d44-11d45 11d97 16ff0-16ff1 1e130-1e136 1e2ae 1e2ec-1e2ef 1f16c "
    "1fbf0-1fbf9"
)
# capital -> small letters that Rust's tables know and Python 3.11's do not
LOWERCASE = (
    "1c89:1c8a a7cb:0264 a7cc:a7cd a7ce:a7cf a7d2:a7d3 a7d4:a7d5 a7da:a7db a7dc:019b 10d50:10d70 "
    "10d51:10d71 10d52:10d72 10d53:10d73 10d54:10d74 10d55:10d75 10d56:10d76 10d57:10d77 "
    "10d58:10d78 10d59:10d79 10d5a:10d7a 10d5b:10d7b 10d5c:10d7c 10d5d:10d7d 10d5e:10d7e "
    "10d5f:10d7f 10d60:10d80 10d61:10d81 10d62:10d82 10d63:10d83 10d64:10d84 10d65:10d85 "
    "16ea0:16ebb 16ea1:16ebc 16ea2:16ebd 16ea3:16ebe 16ea4:16ebf 16ea5:16ec0 16ea6:16ec1 "
    "16ea7:16ec2 16ea8:16ec3 16ea9:16ec4 16eaa:16ec5 16eab:16ec6 16eac:16ec7 16ead:16ec8 "
    "16eae:16ec9 16eaf:16eca 16eb0:16ecb 16eb1:16ecc 16eb2:16ecd 16eb3:16ece 16eb4:16ecf "
    "16eb5:16ed0 16eb6:16ed1 16eb7:16ed2 16eb8:16ed3"
)
# marks (general category M in Python) that StripAccents keeps, and non-marks it removes
ACCENTS_KEPT = (
    "07fd 0898-089f 08ca-08d3 09fe 0afa-0aff 0b55 0c04 0c3c 0d00 0d3b-0d3c 0d81 0eba 1715 180f "
    "1abf-1ace 1cf7 1df6-1dfa a82c a8ff 10d24-10d27 10eab-10eac 10f46-10f50 10f82-10f85 11070 "
    "11073-11074 110c2 11145-11146 111c9 111ce-111cf 1133b 1145e 1182c-1183a 11930-11935 "
    "11937-11938 1193b-1193e 11940 11942-11943 119d1-119d7 119da-119e0 119e4 11a01-11a0a "
    "11a33-11a39 11a3b-11a3e 11a47 11a51-11a5b 11a8a-11a99 11d31-11d36 11d3a 11d3c-11d3d "
    "11d3f-11d45 11d47 11d8a-11d8e 11d90-11d91 11d93-11d97 11ef3-11ef6 16f4f 16f7f-16f87 16fe4 "
    "16ff0-16ff1 1cf00-1cf2d 1cf30-1cf46 1e130-1e136 1e2ae 1e2ec-1e2ef"
)
ACCENTS_DROPPED = "1cf2-1cf3"


def _char_class(ranges: str) -> str:
    """``"0041 0061-007a"`` -> ``[Aa-z]`` (each character escaped)."""
    parts = []
    for item in ranges.split():
        low, _, high = item.partition("-")
        parts.append(regex.escape(chr(int(low, 16)))
                     + ("-" + regex.escape(chr(int(high, 16))) if high else ""))
    return "[" + "".join(parts) + "]"


def _expand(ranges: str) -> set[str]:
    out = set()
    for item in ranges.split():
        low, _, high = item.partition("-")
        out.update(chr(c) for c in range(int(low, 16), int(high or low, 16) + 1))
    return out


_KEPT_RUNS = regex.compile(f"({_char_class(NORMALIZE_KEPT)}+)")
_LOWER_TABLE = {int(a, 16): chr(int(b, 16)) for a, b in (p.split(":") for p in LOWERCASE.split())}
_ACCENTS_KEPT = _expand(ACCENTS_KEPT)
_ACCENTS_DROPPED = _expand(ACCENTS_DROPPED)
HF_WHITE = r"\p{White_Space}"  # Rust's char::is_whitespace
HF_WORD_CHAR = r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]"  # Rust regex's \w
HF_PUNCTUATION = r"[\p{P}!-/:-@\[-`{-~]"  # Unicode punctuation or ASCII punctuation


def unicode_normal_form(form: str, text: str) -> str:
    """``unicodedata.normalize`` as Hugging Face's tables do it: characters newer than its
    tables are kept as they are (and split the text, as any character unknown to it does)."""
    if text.isascii():
        return text
    parts = _KEPT_RUNS.split(text)
    if len(parts) == 1:
        return unicodedata.normalize(form, text)
    return "".join(p if k % 2 else unicodedata.normalize(form, p) for k, p in enumerate(parts))


def lowercase(text: str) -> str:
    """Hugging Face's Lowercase: one character at a time (so no final-sigma rule)."""
    return text.replace("\u03a3", "\u03c3").lower().translate(_LOWER_TABLE)


def strip_accents(text: str) -> str:
    """Hugging Face's StripAccents: drop combining marks (by its tables)."""
    if text.isascii():
        return text
    return "".join(
        c for c in text
        if c not in _ACCENTS_DROPPED
        and (c in _ACCENTS_KEPT or not unicodedata.category(c).startswith("M"))
    )


# -- regexes as Hugging Face's engine (Oniguruma) reads them -----------------------------------

_ESCAPE = regex.compile(r"\\(?:[pP]\{[^}]*\}|x\{[^}]*\}|.)", regex.DOTALL)


def _rewrite(pattern: str, anchors: dict[str, str], inside: dict[str, str] | None = None) -> str:
    """Replace anchors and escapes: ``anchors`` maps ``^``, ``$``, ``\\A``, ``\\Z``, ``\\z``,
    ``(?m:^)``, ``(?m:$)`` or an escape such as ``\\w`` outside character classes, ``inside``
    maps escapes inside them."""
    inside = inside or {}
    out, i, n, depth = [], 0, len(pattern), 0
    while i < n:
        if pattern[i] == "\\":
            m = _ESCAPE.match(pattern, i)
            piece = m.group() if m else pattern[i:]
            out.append(anchors.get(piece, piece) if depth == 0 else inside.get(piece, piece))
            i += len(piece)
            continue
        ch = pattern[i]
        if depth:
            if pattern.startswith("[:", i):  # a POSIX class such as [:alpha:]
                end = pattern.find(":]", i + 2)
                if end != -1:
                    out.append(pattern[i : end + 2])
                    i = end + 2
                    continue
            if ch == "[":
                depth += 1
            elif ch == "]" and not (out and out[-1] in ("[", "[^")):
                depth -= 1
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            depth = 1
            if pattern.startswith("[^", i):
                out.append("[^")
                i += 2
                if i < n and pattern[i] == "]":
                    out.append("]")
                    i += 1
                continue
            out.append("[")
            i += 1
            if i < n and pattern[i] == "]":  # "[]...]": a leading ] is a character
                out.append("]")
                i += 1
            continue
        for atom in ("(?m:^)", "(?m:$)"):
            if pattern.startswith(atom, i) and atom in anchors:
                out.append(anchors[atom])
                i += len(atom)
                break
        else:
            out.append(anchors.get(ch, ch))
            i += 1
    return "".join(out)


_PY_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}"  # the regex package's \w, for Oniguruma


def to_oniguruma(pattern: str) -> str:
    """The split pattern for Hugging Face's engine: the inverse of ``oniguruma.from_oniguruma``.

    A possessive interval ``\\p{N}{1,3}+`` becomes the atomic group ``(?>\\p{N}{1,3})``, and
    anchors are spelled so that they mean in Oniguruma what they mean in Python.

    >>> to_oniguruma(r"\\p{N}{1,3}+| ?\\p{L}++|\\s+$")
    '(?>\\\\p{N}{1,3})| ?\\\\p{L}++|\\\\s+\\\\Z'
    """
    pattern = unguarded(pattern)  # Oniguruma reads its own Unicode: the guards are not for it
    _refuse_multiline(pattern, "Hugging Face")
    prefix, suffix = "", ""
    if pattern.startswith("(?fi)"):  # full case folding: Oniguruma's own (?i)
        prefix, pattern = "(?i)", pattern[5:]
    elif pattern.startswith("(?i)"):  # simple folding: Oniguruma folds fully, so it is checked
        prefix, pattern, suffix = "(?i:", pattern[4:], ")"
    pattern = _rewrite(pattern, {"^": "\\A", "$": "\\Z", "\\Z": "\\z", "(?m:^)": "^", "(?m:$)": "$",
                                 "\\w": f"[{_PY_WORD}]", "\\W": f"[^{_PY_WORD}]"},
                       {"\\w": _PY_WORD})
    out = prefix + regex.sub(_ATOM + r"(\{\d+(?:,\d*)?\})\+", r"(?>\1\2)", pattern) + suffix
    try:  # what Hugging Face will read must read back here (case folding, above all)
        from_oniguruma(out)
    except ValueError as e:
        raise ValueError(f"the split pattern cannot be written for Hugging Face's engine with"
                         f" the same meaning: {e}") from None
    return out


def to_tiktoken_pattern(pattern: str) -> str:
    """The split pattern for tiktoken's engine (Rust's fancy-regex), where ``$`` is the end of
    the text only; a BasicTokenizer (no pattern) becomes "the whole text is one piece".

    >>> to_tiktoken_pattern(r"\\s+$|\\w+")
    '\\\\s+(?=\\\\n?\\\\z)|\\\\w+'
    """
    if not pattern:
        return r"[\s\S]+"
    _refuse_multiline(pattern, "tiktoken")
    if pattern.startswith("(?fi)"):
        raise ValueError("the split pattern folds case fully ((?fi): ß matches ss, as a"
                         " tokenizer.json's leading (?i) does), which tiktoken's regex engine"
                         " cannot do; save it as tokenizer.json")
    return _rewrite(pattern, {"$": "(?=\\n?\\z)", "\\Z": "\\z", "(?m:^)": "(?:\\A|(?<=\\n))",
                              "(?m:$)": "(?=\\n|\\z)"})


def _refuse_multiline(pattern: str, tool: str) -> None:
    if regex.search(r"\(\?[a-zA-Z]*m[a-zA-Z]*[):]", pattern.replace("(?m:^)", "").replace("(?m:$)", "")):
        raise ValueError(f"the split pattern sets the multiline flag (?m), which {tool}'s regex"
                         " engine reads differently; write line anchors as (?m:^) and (?m:$)")


# one regex atom: \p{..}, a [...] class, an escape, or a plain character
_ATOM = r"(\\[pP]\{[^}]*\}|\[(?:\\.|[^\]\\])*\]|\\.|[^\\()\[\]{}|])"


# -- added tokens -------------------------------------------------------------------------------


class AddedToken(NamedTuple):
    """A token matched in the text before BPE, as Hugging Face's ``added_tokens`` entries."""

    content: str
    id: int
    special: bool = True
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = False


_WORD_BEFORE = regex.compile(HF_WORD_CHAR + r"\Z")
_WORD_AFTER = regex.compile(HF_WORD_CHAR)
_SPACE_RUN = regex.compile(HF_WHITE + "*")
_SPACE_BEFORE = regex.compile(HF_WHITE + r"*\Z")


@functools.lru_cache(maxsize=64)
def _matcher(contents: tuple[str, ...]) -> regex.Pattern:
    """One regex for a set of added tokens, longest first (leftmost-longest, as Hugging Face's
    Aho-Corasick automaton matches), compiled once: a file may add thousands."""
    return regex.compile("|".join(regex.escape(s) for s in sorted(contents, key=len, reverse=True)))


def find_added(text: str, tokens: dict[str, AddedToken]) -> list[tuple[str, int | None]]:
    """Cut ``text`` at the added tokens in ``tokens`` (content -> token): ``[(piece, id or
    None)]``. Leftmost-longest matches; a ``single_word`` token must not touch a word character;
    ``lstrip``/``rstrip`` take the whitespace beside the token into it."""
    if not tokens or not text:
        return [(text, None)] if text else []
    out: list[tuple[str, int | None]] = []
    done = 0
    for m in _matcher(tuple(tokens)).finditer(text):
        start, stop = m.span()
        token = tokens[m.group()]
        if token.single_word and (
            (start > 0 and _WORD_BEFORE.search(text, 0, start))
            or (stop < len(text) and _WORD_AFTER.match(text, stop))
        ):
            continue
        if token.lstrip:
            start = max(_SPACE_BEFORE.search(text, 0, start).start(), done)
        if token.rstrip:
            stop = _SPACE_RUN.match(text, stop).end()
        if done < start:
            out.append((text[done:start], None))
        out.append((text[start:stop], token.id))
        done = stop
    if done < len(text):
        out.append((text[done:], None))
    return out


# -- the pipeline -------------------------------------------------------------------------------


Step = Callable[[str, Any], list[str]]  # a pre-tokenizer step: piece, timeout -> pieces
Normalize = Callable[[str, Any], str]  # a normalizer step: text, timeout -> text


def split_regex(compiled: regex.Pattern, behavior: str, invert: bool) -> Step:
    """Hugging Face's Split: cut at the matches, then keep, drop or merge them by ``behavior``."""

    def step(piece: str, timeout: float | None) -> list[str]:
        segments: list[tuple[int, int, bool]] = []  # (start, end, is a match)
        done = 0
        for m in compiled.finditer(piece, timeout=timeout):
            if m.start() > done:
                segments.append((done, m.start(), invert))
            segments.append((m.start(), m.end(), not invert))
            done = m.end()
        if done < len(piece):
            segments.append((done, len(piece), invert))
        kept: list[list[int]] = []  # [start, end] of each piece
        previous = False
        if behavior == "MergedWithNext":
            for start, end, is_match in reversed(segments):
                if is_match and not previous and kept:
                    kept[-1][0] = start
                else:
                    kept.append([start, end])
                previous = is_match
            kept.reverse()
        else:
            for start, end, is_match in segments:
                if behavior == "Removed" and is_match:
                    continue
                joins = (behavior == "Contiguous" and is_match == previous) or (
                    behavior == "MergedWithPrevious" and is_match and not previous)
                if joins and kept:
                    kept[-1][1] = end
                else:
                    kept.append([start, end])
                previous = is_match
        return [piece[a:b] for a, b in kept if b > a]

    return step


BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


class Pipeline:
    """Steps 1-3 of a Hugging Face tokenizer (see the top of this module), built by
    ``read_hf_pipeline`` and kept by the tokenizer (``tok.pipeline``) for ``chunks``."""

    def __init__(
        self,
        *,
        normalizer: list[Normalize] | None = None,
        pre_tokenizer: list[Step] | None = None,
        added: list[AddedToken] | None = None,
        ignore_merges: bool = False,
        described: list[str] | None = None,
        ignored: list[str] | None = None,
        json: dict | None = None,
        decoder: Decoder | None = None,
        untrusted: bool = False,
    ) -> None:
        self.normalizer = normalizer or []
        self.pre_tokenizer = pre_tokenizer  # None: the tokenizer's split pattern does it
        self.added = {t.content: t for t in (added or [])}
        self.ignore_merges = ignore_merges
        self.described = described or []  # what it does, one line per step, for people
        self.ignored = ignored or []  # what the file said that encode() does not do, and why
        self.json = json or {}  # the file's own objects, written back by to_hf_json
        self.decoder = decoder  # how decode() spells text, when not as the bytes (decoders.py)
        # a file's regex (Replace, Split) or many added tokens (a costly matcher): the work runs
        # in a worker process when a budget applies (base.Tokenizer.chunks)
        self.untrusted = untrusted or len(self.added) > MAX_ADDED_HERE
        self.worker_spec: object | None = None  # what a worker rebuilds it from (pipeline_json.spec_of)
        # what the normalized added tokens look like after the normalizer (they match there)
        self.normalized_content = {s: self.normalize(s) or s for s, t in self.added.items()
                                   if t.normalized}

    def normalize(self, text: str, timeout: float | None = None) -> str:
        """The normalizer's steps in order; a Replace regex (from a file) must end within
        ``timeout`` seconds (else TimeoutError), as the split pattern must."""
        for step in self.normalizer:
            text = step(text, timeout)
        return text

    def raw_added(self, allowed: dict[str, int]) -> dict[str, AddedToken]:
        """Added tokens matched on raw text: the allowed special tokens and the non-special
        ones that are not normalized."""
        out = {s: t for s, t in self.added.items() if not t.special and not t.normalized}
        for s, idx in allowed.items():
            token = self.added.get(s)
            if token is None or not token.normalized:
                out[s] = token or AddedToken(s, idx)
        return out

    def normalized_added(self, allowed: dict[str, int]) -> dict[str, AddedToken]:
        """Added tokens matched on normalized text, keyed by their normalized content."""
        return {self.normalized_content[s]: t for s, t in self.added.items()
                if t.normalized and (not t.special or s in allowed)}

    def pieces(self, text: str, allowed: dict[str, int], split: Callable[..., list[str]],
               deadline: float | None = None) -> list[tuple[str, int | None]]:
        """The whole pipeline: ``[(chunk, added token id or None)]`` ready for BPE. Past
        ``deadline`` (a ``time.monotonic()`` value), TimeoutError."""
        out: list[tuple[str, int | None]] = []
        later = self.normalized_added(allowed)
        for piece, idx in find_added(text, self.raw_added(allowed)):
            if idx is not None:
                out.append((piece, idx))
                continue
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            for part, idx2 in find_added(self.normalize(piece, left), later):
                if idx2 is not None:
                    out.append((part, idx2))
                else:
                    out += [(chunk, None) for chunk in split(part, deadline=deadline)]
        return out

    def pre_tokenize(self, text: str, timeout: Callable[[], float | None]) -> list[str]:
        """The pre-tokenizer's steps, each on every piece the one before made; ``timeout()``
        gives the time left for the next regex (or raises TimeoutError)."""
        pieces = [text] if text else []
        for step in self.pre_tokenizer or []:
            pieces = [p for piece in pieces for p in step(piece, timeout())]
        return pieces

    def __repr__(self) -> str:
        return f"<Pipeline: {'; '.join(self.described) or 'nothing'}>"


MAX_ADDED_HERE = 64  # more added tokens than this are matched in a worker when a budget applies
PIPELINE_FIX = ("the file's regexes backtrack or its added tokens are too many to match; fix the"
                " tokenizer file, or use the tokenizers library")
