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
import uuid
from collections.abc import Callable
from typing import Any, NamedTuple

import regex

from .decoders import Decoder, read_decoder
from .limits import check_pattern
from .oniguruma import compile_translated, from_oniguruma, unguarded
from .patterns import BYTE_LEVEL_PATTERN  # noqa: F401 - ByteLevel's regex: read from here too
from .text import GPT2_CHAR_TO_BYTE, shorten

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
_WHITE = r"\p{White_Space}"  # Rust's char::is_whitespace
_WORD_CHAR = r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]"  # Rust regex's \w
_PUNCTUATION = r"[\p{P}!-/:-@\[-`{-~]"  # Unicode punctuation or ASCII punctuation


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


_WORD_BEFORE = regex.compile(_WORD_CHAR + r"\Z")
_WORD_AFTER = regex.compile(_WORD_CHAR)
_SPACE_RUN = regex.compile(_WHITE + "*")
_SPACE_BEFORE = regex.compile(_WHITE + r"*\Z")


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


def _split_regex(compiled: regex.Pattern, behavior: str, invert: bool) -> Step:
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
        self._spec: PipelineSpec | None = None
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

    def spec(self, pattern: str) -> PipelineSpec:
        """What a worker process needs to run ``pieces`` as this pipeline does (with the
        tokenizer's split ``pattern``), made once and kept by the worker between calls."""
        if self._spec is None or self._spec.pattern != pattern:
            self._spec = PipelineSpec(self.json.get("normalizer"), self.json.get("pre_tokenizer"),
                                      tuple(self.added.values()), pattern)
        return self._spec

    def __repr__(self) -> str:
        return f"<Pipeline: {'; '.join(self.described) or 'nothing'}>"


MAX_ADDED_HERE = 64  # more added tokens than this are matched in a worker when a budget applies
PIPELINE_FIX = ("the file's regexes backtrack or its added tokens are too many to match; fix the"
                " tokenizer file, or use the tokenizers library")


class PipelineSpec:
    """A pipeline as plain data (the file's normalizer and pre-tokenizer objects, the added
    tokens, the split pattern), which a worker process rebuilds once (``pieces_here``)."""

    def __init__(self, normalizer: object, pre_tokenizer: object, added: tuple, pattern: str) -> None:
        self.normalizer, self.pre_tokenizer, self.added, self.pattern = (
            normalizer, pre_tokenizer, added, pattern)
        self.key = f"pipeline-{uuid.uuid4().hex}"
        self.built: tuple | None = None  # (pipeline, split), in the worker

    def __getstate__(self) -> dict:
        return {**self.__dict__, "built": None}

    def build(self) -> tuple[Pipeline, Callable[..., list[str]]]:
        if self.built is None:
            from .split import compile_pattern, split_by_pattern

            name = "the tokenizer file"
            normalizer = [] if self.normalizer is None else _normalizer(self.normalizer, name)[0]
            steps, _, plain = _pre_tokenizer(self.pre_tokenizer, name)
            pipeline = Pipeline(normalizer=normalizer, added=list(self.added),
                                pre_tokenizer=None if plain is not None else steps)
            compiled = compile_pattern(self.pattern, max_chars=None)

            def split(piece: str, deadline: float | None = None) -> list[str]:
                if pipeline.pre_tokenizer is not None:
                    return pipeline.pre_tokenize(piece, lambda: None)
                if compiled is None:
                    return [piece] if piece else []
                return split_by_pattern(compiled, piece, budget=None)

            self.built = (pipeline, split)
        return self.built


def pieces_here(spec: PipelineSpec, text: str, allowed: dict[str, int],
                split_only: bool = False) -> list[tuple[str, int | None]]:
    """``Pipeline.pieces`` of the pipeline ``spec`` describes (``split_only``: the split
    alone): what a worker process runs."""
    pipeline, split = spec.build()
    if split_only:
        return [(chunk, None) for chunk in split(text)]
    return pipeline.pieces(text, allowed, split)


# -- reading tokenizer.json -------------------------------------------------------------------


def _unsupported(name: str, key: str, what: object, hint: str, after: str = "") -> ValueError:
    """``<file>: <key> <what><after> is not supported``: ``what`` is quoted, ``after`` is not
    (so a closing parenthesis stays outside the quotes)."""
    return ValueError(f"{name}: {key} {shorten(what, 60)}{after} is not supported: it would"
                      f" change the ids and bpe_core cannot do it exactly. {hint}")


def _regex_of(obj: object, name: str, key: str) -> str:
    """A Split or Replace pattern: ``{"String": s}`` (literal) or ``{"Regex": r}`` (Oniguruma)."""
    if isinstance(obj, dict) and isinstance(obj.get("String"), str):
        return regex.escape(obj["String"])
    if isinstance(obj, dict) and isinstance(obj.get("Regex"), str):
        try:
            return from_oniguruma(obj["Regex"])
        except ValueError as e:
            raise ValueError(f"{name}: key '{key}': {e}") from None
    raise ValueError(f"{name}: key '{key}' should be {{\"String\": ...}} or {{\"Regex\": ...}},"
                     f" found {shorten(obj)}")


def _compile(pattern: str, name: str, key: str) -> regex.Pattern:
    check_pattern(pattern, f"{name}: the pattern of key '{key}'", max_chars=None)
    try:
        return compile_translated(pattern)
    except (regex.error, OverflowError, RecursionError) as e:
        raise ValueError(f"{name}: key '{key}' is not a regex this tool reads ({e})") from None


_REQUIRED = object()


def _flag(step: dict, field: str, name: str, key: str, default: object = _REQUIRED) -> bool:
    """A true/false field of a step, as strict as Hugging Face's reader (which refuses a
    missing field that has no default, and anything but a boolean)."""
    value = step.get(field, default)
    if not isinstance(value, bool):
        raise ValueError(f"{name}: key '{key}.{field}' should be true or false, found"
                         f" {'nothing' if value is _REQUIRED else shorten(value)}")
    return value


def _steps(obj: object, name: str, key: str, list_key: str) -> list[tuple[str, dict]]:
    """Flatten a Sequence: ``[(key path, step object)]``."""
    if not isinstance(obj, dict):
        raise ValueError(f"{name}: key '{key}' should be an object")
    if obj.get("type") != "Sequence":
        return [(key, obj)]
    items = obj.get(list_key)
    if not isinstance(items, list):
        raise ValueError(f"{name}: key '{key}.{list_key}' should be a list")
    out = []
    for k, item in enumerate(items):
        out += _steps(item, name, f"{key}.{list_key}[{k}]", list_key)
    return out


def _normalizer(obj: object, name: str) -> tuple[list[Normalize], list[str]]:
    steps, described = [], []
    for key, step in _steps(obj, name, "normalizer", "normalizers"):
        kind = step.get("type")
        if kind in ("NFC", "NFD", "NFKC", "NFKD"):
            steps.append(lambda s, _, form=kind: unicode_normal_form(form, s))
            described.append(f"normalize Unicode ({kind})")
        elif kind == "Lowercase":
            steps.append(lambda s, _: lowercase(s))
            described.append("lowercase")
        elif kind == "StripAccents":
            steps.append(lambda s, _: strip_accents(s))
            described.append("strip accents (combining marks)")
        elif kind == "Strip":
            left, right = (_flag(step, "strip_left", name, key), _flag(step, "strip_right", name, key))
            strip = regex.compile(("^" + _WHITE + "+" if left else "(?!)") + "|"
                                  + (_WHITE + r"+\Z" if right else "(?!)"))
            steps.append(lambda s, _, strip=strip: strip.sub("", s))
            described.append("strip whitespace" + ("" if left and right else
                                                   " on the left" if left else " on the right"))
        elif kind == "Replace":
            pattern = _compile(_regex_of(step.get("pattern"), name, key + ".pattern"), name, key)
            content = step.get("content")
            if not isinstance(content, str):
                raise ValueError(f"{name}: key '{key}.content' should be a string")
            steps.append(lambda s, timeout, p=pattern, c=content: p.sub(lambda _: c, s,
                                                                        timeout=timeout))
            described.append(f"replace {shorten(step.get('pattern'), 40)} by {shorten(content, 20)}")
        elif kind == "Prepend":
            prefix = step.get("prepend")
            if not isinstance(prefix, str):
                raise ValueError(f"{name}: key '{key}.prepend' should be a string")
            steps.append(lambda s, _, p=prefix: p + s if s else s)
            described.append(f"prepend {shorten(prefix, 20)}")
        else:
            raise _unsupported(name, f"key '{key}' (normalizer type", kind,
                               "bpe_core reads NFC, NFD, NFKC, NFKD, Lowercase, StripAccents,"
                               " Strip, Replace, Prepend and Sequence of these; remove the"
                               " normalizer or use the tokenizers library.", after=")")
    return steps, described


def _pre_tokenizer(obj: object, name: str) -> tuple[list[Step], list[str], tuple | None]:
    """The steps, their description, and ``(pattern, prefix_space, byte_level_regex)`` when the
    whole pre-tokenizer is a plain split pattern (no step list needed)."""
    items = _steps(obj, name, "pre_tokenizer", "pretokenizers")
    steps: list[Step] = []
    described: list[str] = []
    byte_level = None
    simple: list[str] = []  # the regexes when every step is an Isolated Split
    for key, step in items:
        kind = step.get("type")
        if byte_level is not None:
            raise ValueError(f"{name}: key '{key}' comes after the ByteLevel pre-tokenizer, which"
                             " turns text into byte symbols; bpe_core reads ByteLevel last only")
        if kind == "ByteLevel":
            byte_level = step
            prefix = _flag(step, "add_prefix_space", name, key)
            use_regex = _flag(step, "use_regex", name, key, True)
            compiled = regex.compile(BYTE_LEVEL_PATTERN)
            split = _split_regex(compiled, "Isolated", False)

            def byte_level_step(piece, timeout, prefix=prefix, use_regex=use_regex, split=split):
                if prefix and not piece.startswith(" "):
                    piece = " " + piece
                return split(piece, timeout) if use_regex else [piece]

            steps.append(byte_level_step)
            described.append("ByteLevel: " + ", ".join(
                (["a space before every piece"] if prefix else [])
                + (["split with GPT-2's regex"] if use_regex else []) or ["bytes"]))
            if use_regex:
                simple.append(BYTE_LEVEL_PATTERN)
            if prefix:
                simple.append("not simple")
            continue
        if kind == "Split":
            pattern = _regex_of(step.get("pattern"), name, key + ".pattern")
            behavior, invert = step.get("behavior"), _flag(step, "invert", name, key)
            if behavior not in BEHAVIORS:
                raise ValueError(f"{name}: key '{key}.behavior' is {shorten(behavior)}; expected"
                                 f" one of {', '.join(BEHAVIORS)}")
            compiled = _compile(pattern, name, key + ".pattern")
            simple.append(pattern if behavior == "Isolated" and not invert else "not simple")
        elif kind == "Digits":
            individual = _flag(step, "individual_digits", name, key, False)
            behavior = "Isolated" if individual else "Contiguous"
            compiled, invert, pattern = regex.compile(r"\p{N}"), False, "not simple"
            simple.append(pattern)
        elif kind == "Punctuation":
            behavior, invert = step.get("behavior", "Isolated"), False
            if behavior not in BEHAVIORS:
                raise ValueError(f"{name}: key '{key}.behavior' is {shorten(behavior)}")
            compiled = regex.compile(_PUNCTUATION)
            simple.append("not simple")
        elif kind == "Whitespace":
            compiled = regex.compile(f"{_WORD_CHAR}+|[^{_WORD_CHAR[1:-1]}{_WHITE}]+")  # \\w+|[^\\w\\s]+
            behavior, invert = "Removed", True
            simple.append("not simple")
        elif kind == "WhitespaceSplit":
            compiled, behavior, invert = regex.compile(_WHITE), "Removed", False
            simple.append("not simple")
        elif kind == "CharDelimiterSplit" and isinstance(step.get("delimiter"), str):
            compiled = regex.compile(regex.escape(step["delimiter"]))
            behavior, invert = "Removed", False
            simple.append("not simple")
        else:
            raise _unsupported(name, f"key '{key}' (pre-tokenizer type", kind,
                               "bpe_core reads byte-level BPE: ByteLevel, Split, Digits,"
                               " Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit"
                               " and Sequence of these.", after=")")
        steps.append(_split_regex(compiled, behavior, invert))
        described.append(f"{kind} ({behavior}{', inverted' if invert else ''})"
                         + (f": {shorten(step.get('pattern'), 60)}" if kind == "Split" else ""))
    if byte_level is None:
        raise ValueError(f"{name}: key 'pre_tokenizer' has no ByteLevel step, so the model sees"
                         " characters; bpe_core reads byte-level and SentencePiece-style BPE only")
    plain = None
    if "not simple" not in simple and len(simple) <= 1:
        plain = simple[0] if simple else ""
    return steps, described, plain


_ADDS_TOKENS = ("TemplateProcessing", "BertProcessing", "RobertaProcessing")


def _decodes_as_itself(text: str) -> bool:
    """Whether the ByteLevel decoder gives ``text`` back (an added token's content goes through
    it too: GPT-2's table turns "é" into the byte 0xE9, so "<café>" decodes to "<caf\ufffd>")."""
    # isascii first: at C speed over a file's 8 million characters of added tokens (a fuzzed
    # ladder a, aa, ... of 4,000), where the loop took over 2 s under a fuzzer's tracing
    return text.isascii() or all(ch.isascii() or ch not in GPT2_CHAR_TO_BYTE for ch in text)


def _added_id(content: str, vocab: dict, given: dict[str, int]) -> int:
    """The id tokenizers (0.23) gives an added token as it reads the file, whatever id the file
    writes: the id it already has (an added token or a vocabulary entry of that content), else
    the next one after the vocabulary and the added tokens so far."""
    if content in given:
        return given[content]
    known = vocab.get(content)
    if isinstance(known, int) and not isinstance(known, bool):
        return known
    last = max(given.values(), default=None)
    return last + 1 if last is not None and last >= len(vocab) else len(vocab)


def _has_regex(obj: object) -> bool:
    """Whether a normalizer or pre-tokenizer object holds a ``{"Regex": ...}`` (the file's own
    regex, which may backtrack: run in a worker when a budget applies)."""
    if isinstance(obj, dict):
        return "Regex" in obj or any(map(_has_regex, obj.values()))
    return isinstance(obj, list) and any(map(_has_regex, obj))


def read_hf_pipeline(
    document: dict, name: str
) -> tuple[Pipeline | None, str, dict[str, int], list[str]]:
    """What a tokenizer.json does before BPE: ``(pipeline or None, split pattern, special
    tokens, what encode() leaves out)``. None when the plain split pattern says it all."""
    model = document["model"]
    for key, harmless in (("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")),
                          ("end_of_word_suffix", (None, ""))):
        if model.get(key) not in harmless:
            raise _unsupported(name, f"key 'model.{key}' =", model.get(key),
                               "Set it to null to read the file (or use the tokenizers library).")
    ignore_merges = model.get("ignore_merges") is True
    added: list[AddedToken] = []
    raw = document.get("added_tokens") or []
    if not isinstance(raw, list):
        raise ValueError(f"{name}: key 'added_tokens' should be a list")
    vocab = model.get("vocab") if isinstance(model.get("vocab"), dict) else {}
    ids_given: dict[str, int] = {}  # content -> the id tokenizers gives it (see _added_id)
    renumbered: list[str] = []
    for k, entry in enumerate(raw):
        if not (isinstance(entry, dict) and isinstance(entry.get("content"), str)
                and isinstance(entry.get("id"), int) and entry["content"]):
            raise ValueError(f"{name}: key 'added_tokens[{k}]' needs 'content' (a non-empty"
                             " string) and 'id'")
        content = entry["content"]
        idx = _added_id(content, vocab, ids_given)
        if idx != entry["id"]:
            renumbered.append(f"{shorten(content, 30)}: {entry['id']} -> {idx}")
        if content in ids_given:
            continue  # listed twice: the first entry stands, as in tokenizers
        ids_given[content] = idx
        special = entry.get("special", False) is True
        flags = {f: entry.get(f, f == "normalized" and not special) is True
                 for f in ("single_word", "lstrip", "rstrip", "normalized")}
        added.append(AddedToken(content, idx, special, **flags))
    specials = {t.content: t.id for t in added if t.special}
    normalizer, described = ([], [])
    if document.get("normalizer") is not None:
        normalizer, described = _normalizer(document["normalizer"], name)
    pre = document.get("pre_tokenizer")
    if pre is None:
        raise ValueError(f"{name}: key 'pre_tokenizer' is null, so the model would see"
                         " characters; bpe_core reads byte-level and SentencePiece-style BPE only")
    steps, pre_described, plain = _pre_tokenizer(pre, name)
    ignored = []
    if renumbered:
        ignored.append(
            f"added_tokens: {len(renumbered)} take the id Hugging Face's tokenizers gives them,"
            " not the file's (a token the vocabulary already holds keeps its vocabulary id, and"
            " the others are numbered on after the vocabulary, whatever the file says): "
            + ", ".join(renumbered[:5]) + (" ..." if len(renumbered) > 5 else ""))
    post = document.get("post_processor")
    kinds = [s.get("type") for _, s in _steps(post, name, "post_processor", "processors")
             ] if isinstance(post, dict) else []
    if any(kind in _ADDS_TOKENS for kind in kinds):
        ignored.append("post_processor: the file adds tokens around each text (such as a"
                       " beginning-of-text token) for a model's input; encode() gives the"
                       " text's own ids, like tiktoken. Add them yourself where a model needs them.")
    for key in ("truncation", "padding"):
        if document.get(key) is not None:
            ignored.append(f"{key}: the file {'cuts' if key == 'truncation' else 'pads'} a"
                           " model's input to a length; encode() gives every id of the text.")
    decoder, not_followed = read_decoder(document.get("decoder"), name)
    ignored += not_followed
    if decoder is not None and decoder.byte_level and all(
            map(_decodes_as_itself, (t.content for t in added))):
        decoder = None  # the bytes' text is the ByteLevel decoder's (Tokenizer.decode)
    needs = (normalizer or plain is None or ignore_merges or decoder is not None
             or any(not t.special or t.single_word or t.lstrip or t.rstrip or t.normalized
                    for t in added))
    if not needs:
        return None, plain or "", specials, ignored
    if ignore_merges:
        described.append("ignore_merges: a piece that is a whole token is that token")
    if any(not t.special for t in added):
        described.append(f"{sum(not t.special for t in added)} added tokens that always match")
    if decoder is not None:
        described.append(f"decoder: {decoder.described}")
    pipeline = Pipeline(
        normalizer=normalizer,
        pre_tokenizer=None if plain is not None else steps,
        added=added,
        ignore_merges=ignore_merges,
        described=described + ([] if plain is not None else pre_described),
        ignored=ignored,
        json={"normalizer": document.get("normalizer"), "pre_tokenizer": pre,
              "decoder": document.get("decoder")},
        decoder=decoder,
        untrusted=_has_regex(document.get("normalizer")) or _has_regex(pre),
    )
    return pipeline, plain or "", specials, ignored
