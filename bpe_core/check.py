"""Check your BPE: read what a learner's own trainer produced, compare it with the reference, and
find the most likely mistake.

A learner who wrote BPE themselves (the seeds' minbpe tutorial, Stanford CS336's assignment 1)
brings the merges their code learned from a text, with its settings. This module

1. reads those merges safely, whatever they were saved as (``read_merges``): a minbpe ``.model``,
   CS336's ``vocab`` / ``merges`` printed as Python literals, a merges.txt in GPT-2's byte
   alphabet, a dict or list of id pairs, or any tokenizer file ``files.py`` reads. Merges become
   pairs of token BYTES, since learners number their tokens differently but bytes compare;
2. compares them with the reference's merges (``compare_merges``): equal, or the first step where
   they differ;
3. explains that step (``check_merges``): both pairs with their counts in the reference's tokens
   just before it, and who wins a tie under each tie rule;
4. replays known mistakes (the bug zoo, ``MISTAKES``) with a small trainer written to be read and
   bent (``replay_training``), and reports the mistakes whose merges agree with the learner's for
   longest (``diagnose``); ``diagnose_encoding`` does the same for an encoder's ids.

Pasted text is data, never code: Python literals are read with ``ast`` after bounds on size,
nesting and item counts, never with ``eval``; pickles are refused. Every refusal is a ValueError
that says what was expected and what was found.

Bounds (a learner's output for a text of the page is far smaller):

    MAX_INPUT_CHARS    8,000,000  characters of a file (a .model, merges.txt, tokenizer.json)
    MAX_PYTHON_CHARS   2,000,000  characters of Python literals (parsing them takes about
                                  100 bytes of memory per character, briefly)
    MAX_NESTING        10         brackets inside brackets (merges need 2: a list of pairs)
    MAX_MERGES         100,000    merges
    MAX_CHECK_CHARS    200,000    characters of the text trained on (the reference and every
                                  replayed mistake train on it)
    WINDOW             20         steps a mistake is replayed past the learner's first difference
                                  (the best ones are then replayed to the end)
    MAX_PLAIN_STEPS    2,000      merges of the plain trainer (the mistakes in counting and
                                  merging): about a second on 100 KB of text

>>> result = compare_merges([(b"a", b"a"), (b"aa", b"b")], [(b"a", b"a"), (b"a", b"b")])
>>> result.first_difference, result.mine_pair, result.reference_pair
(2, (b'aa', b'b'), (b'a', b'b'))
"""

from __future__ import annotations

import ast
import json
import keyword
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, NamedTuple

import regex

from .base import Tokenizer, cut_at_specials, training_specials
from .basic import BasicTokenizer
from .files import read_tokenizer
from .formats import MODEL_HEADERS, gpt2_bytes, parse_minbpe
from .merges import apply_merges, get_stats, merge
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .text import clean_text, shorten
from .training import TIE_RULES, train_bpe

MAX_INPUT_CHARS = 8_000_000
MAX_PYTHON_CHARS = 2_000_000
MAX_NESTING = 10
MAX_MERGES = 100_000
MAX_CHECK_CHARS = 200_000
WINDOW = 20
MAX_PLAIN_STEPS = 2_000

Pair = tuple[bytes, bytes]  # a merge as the bytes of its two tokens: (b" t", b"he")

TIE_RULE_WORDS = {
    "seen": "the pair seen first in the text, as minbpe's max over a dict",
    "bytes": "the greatest pair of token bytes, as CS336",
    "ids": "the smallest pair of token ids",
}

PATTERN_NAMES = {
    GPT2_SPLIT_PATTERN: "GPT-2",
    GPT4_SPLIT_PATTERN: "GPT-4",
    GPT4O_SPLIT_PATTERN: "GPT-4o",
}


def pattern_name(pattern: str) -> str:
    """How messages name a split pattern.

    >>> pattern_name(GPT2_SPLIT_PATTERN), pattern_name(""), pattern_name(r"\\w+")
    ('the GPT-2 pattern', 'no split pattern', 'a custom pattern')
    """
    if not pattern:
        return "no split pattern"
    if pattern in PATTERN_NAMES:
        return f"the {PATTERN_NAMES[pattern]} pattern"
    return "a custom pattern"


def _show(pair: Pair) -> str:
    """A merge as messages write it: ``b' t' + b'he'``."""
    return f"{pair[0]!r} + {pair[1]!r}"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


# ---------------------------------------------------------------------------------------------
# 1. Reading the learner's output


class LearnerOutput(NamedTuple):
    """What ``read_merges`` found: the merges as bytes pairs, in the order they were learned."""

    merges: list[Pair]
    vocab: dict[int, bytes] | None  # the learner's own numbering, when the input had one
    special_tokens: list[str]  # tokens of the vocab that no merge made and that are no byte
    format: str  # in words: "minbpe .model", "Python literals (vocab, merges)", ...
    notes: list[str]  # things worth knowing that are not errors


_PICKLE_START = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")


def read_merges(
    data: str | bytes, name: str = "", *, vocab: str | bytes | None = None
) -> LearnerOutput:
    """Read a learner's merges from text or a file's bytes; the format is found from the content.

    Accepted: a minbpe ``.model``; Python literals (``vocab = {...}``, ``merges = [...]``, a bare
    list or dict, or CS336's ``(vocab, merges)``) with merges as pairs of bytes or of ids; a
    merges.txt in GPT-2's byte alphabet (``Ġ`` for a space; its vocab.json may come as
    ``vocab=``); a JSON list of merges; a tokenizer.json or tiktoken file. Anything else, or
    anything too large or too deep, is a ValueError that says what was expected and found.

    >>> out = read_merges("merges = [(b' ', b't'), (b'h', b'e'), (b' t', b'he')]")
    >>> out.merges, out.format
    ([(b' ', b't'), (b'h', b'e'), (b' t', b'he')], 'Python literals (merges)')
    >>> read_merges("{(104, 105): 256, (256, 33): 257}").merges
    [(b'h', b'i'), (b'hi', b'!')]
    >>> read_merges("Ġ t\\nh e\\nĠt he\\n").merges
    [(b' ', b't'), (b'h', b'e'), (b' t', b'he')]
    """
    label = name or "the pasted text"
    text = _as_text(data, label)
    head = text.lstrip("\ufeff \t\r\n")
    first_line = head.split("\n", 1)[0].strip()
    if first_line in MODEL_HEADERS:
        return _read_minbpe(text, label)
    if head[:1] in ("{", "["):
        document = _try_json(text, label)
        if document is not None:
            return _read_json(document, data, label)
    if _looks_like_tiktoken(head):
        return _read_tokenizer_file(data, label, "tiktoken ranks")
    vocab_output = None if vocab is None else _read_vocab_json(vocab)
    if not _looks_like_python(head):
        return _read_merges_txt(text, label, vocab_output)
    try:
        out = _read_python(text, label)
        if vocab is not None:
            out.notes.append("the vocab.json given with it was not used (it goes with a"
                             " merges.txt)")
        return out
    except ValueError as python_error:
        if not _looks_like_merges_txt(text):
            raise
        try:  # a merges.txt whose first tokens look like Python, such as "( ("
            return _read_merges_txt(text, label, vocab_output)
        except ValueError:
            raise python_error from None


def _as_text(data: object, label: str) -> str:
    if isinstance(data, bytes | bytearray):
        if bytes(data[:2]) in _PICKLE_START:
            raise ValueError(
                f"{label} is a Python pickle. Loading a pickle can run any code, so this tool never"
                " does: save the merges as text instead (print(merges), or a minbpe .model)"
            )
        if len(data) > MAX_INPUT_CHARS:
            raise ValueError(f"{label} has {len(data):,} bytes; this tool reads at most"
                             f" {MAX_INPUT_CHARS:,}")
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = bytes(data).count(b"\n", 0, e.start) + 1
            raise ValueError(f"{label}, line {line}: not UTF-8 text (expected merges written as"
                             " text)") from None
    if not isinstance(data, str):
        raise ValueError(f"expected the merges as text (str) or a file's bytes, not"
                         f" {type(data).__name__}")
    if len(data) > MAX_INPUT_CHARS:
        raise ValueError(f"{label} has {len(data):,} characters; this tool reads at most"
                         f" {MAX_INPUT_CHARS:,}")
    return data


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


# -- sizes before parsing ---------------------------------------------------------------------

_INTERESTING = regex.compile(r"""[\[\](){}#'",]""")
_STRING_END = {  # from just after the opening quote to just after the closing one
    "'": regex.compile(r"(?:\\.|[^'\\\n])*+'"),
    '"': regex.compile(r'(?:\\.|[^"\\\n])*+"'),
    "'''": regex.compile(r"(?s:\\.|[^\\])*?'''"),
    '"""': regex.compile(r'(?s:\\.|[^\\])*?"""'),
}


def _check_shape(text: str, label: str) -> None:
    """Refuse text nested too deep or with too many items, before any parser sees it.

    Python's parser and ``json`` recurse on nesting (``"[" * 100000`` crashes them) and build an
    object per item, so both are bounded here with a scan that skips strings and comments:
    brackets inside a token such as ``b'(('`` do not count.
    """
    depth = opened = commas = strings = 0
    pos = 0
    while (m := _INTERESTING.search(text, pos)) is not None:
        ch, i = m.group(), m.start()
        pos = i + 1
        if ch in "([{":
            depth += 1
            opened += 1
            if depth > MAX_NESTING:
                raise ValueError(
                    f"{label}, line {_line_of(text, i)}: brackets nested more than {MAX_NESTING}"
                    " deep; expected merges, which need two levels (a list of pairs)"
                )
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch == ",":
            commas += 1
        elif ch == "#":  # a comment, to the end of the line
            end = text.find("\n", i)
            pos = len(text) if end == -1 else end
        else:  # a quote: skip the string
            delimiter = text[i : i + 3] if text[i : i + 3] in ("'''", '"""') else ch
            end_match = _STRING_END[delimiter].match(text, i + len(delimiter))
            if end_match is None:  # not closed: the parser will say where
                end = text.find("\n", i)
                pos = len(text) if end == -1 or len(delimiter) == 3 else end
            else:
                pos = end_match.end()
            strings += 1
        # pairs, tokens and list items each cost a few of these; too many is a huge paste
        if opened > MAX_MERGES + 1_000 or strings > 3 * MAX_MERGES + 1_000:
            # a merge is one bracket and two strings; count roughly in the whole text
            estimate = max(text.count("("), text.count("["), text.count("'") // 4)
            raise ValueError(
                f"{label} holds about {estimate:,} merges; this tool reads at most {MAX_MERGES:,}"
            )
        if commas > 4 * MAX_MERGES:
            raise ValueError(f"{label} has more than {commas:,} items; this tool reads at most"
                             f" {MAX_MERGES:,} merges and their vocabulary")


def _too_many(n: int, label: str) -> None:
    if n > MAX_MERGES:
        raise ValueError(f"{label} has {n:,} merges; this tool reads at most {MAX_MERGES:,}")


def _too_big_vocab(n: int, label: str) -> None:
    if n > MAX_MERGES + 256 + 1_000:
        raise ValueError(f"{label} has a vocab of {n:,} tokens; this tool reads at most"
                         f" {MAX_MERGES:,} merges and their vocab")


# -- JSON: tokenizer.json, a GPT-2 vocab.json, or a list of merges ----------------------------


def _try_json(text: str, label: str) -> Any:
    """The JSON document, or None when the text is not JSON (it may be Python)."""
    _check_shape(text, label)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _read_json(document: Any, data: str | bytes, label: str) -> LearnerOutput:
    if isinstance(document, dict) and isinstance(document.get("model"), dict):
        return _read_tokenizer_file(data, label, "tokenizer.json")
    if isinstance(document, dict) and document and all(
        isinstance(k, str) and isinstance(v, int) for k, v in document.items()
    ):
        raise ValueError(
            f"{label} is a vocab.json (token -> id): it does not say which two tokens each merge"
            " joined. Give its merges.txt instead (the vocab.json may come along as vocab=)"
        )
    if isinstance(document, list):
        _too_many(len(document), label)
        pairs = []
        for k, item in enumerate(document, 1):
            if isinstance(item, str) and item.count(" ") == 1:
                item = item.split(" ")
            if not (isinstance(item, list) and len(item) == 2):
                raise ValueError(f"{label}: item {k} of the list is {shorten(item)}: expected a"
                                 ' merge such as ["Ġ", "t"] or [32, 116]')
            pairs.append(tuple(item))
        if pairs and all(map(_is_id, pairs[0])):
            for k, pair in enumerate(pairs, 1):
                if not all(map(_is_id, pair)):
                    raise ValueError(f"{label}: item {k} of the list is {shorten(list(pair))}:"
                                     " expected two ids such as [32, 116], like item 1")
            merges = _bytes_of_id_merges(
                [(pair, 256 + k) for k, pair in enumerate(pairs)], None, label, "the list"
            )
            return LearnerOutput(merges, None, [], "JSON list of id pairs", [])
        merges = []
        for k, (a, b) in enumerate(pairs, 1):
            where = f"{label}: item {k} of the list"
            if not (isinstance(a, str) and isinstance(b, str)):
                raise ValueError(f"{where} is {shorten([a, b])}: expected two token strings in"
                                 ' GPT-2\'s byte alphabet, such as ["Ġ", "t"]')
            merges.append((gpt2_bytes(a, where), gpt2_bytes(b, where)))
        _check_made(merges, lambda k: f"{label}: item {k} of the list")
        return LearnerOutput(merges, None, [], "JSON list of merges (GPT-2 byte alphabet)", [])
    raise ValueError(f"{label} is JSON but not merges: expected a list of merges, a"
                     " tokenizer.json, or Python literals")


def _read_tokenizer_file(data: str | bytes, label: str, kind: str) -> LearnerOutput:
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    tok = read_tokenizer(raw, label, pattern="", special_tokens={})  # merges only
    _too_many(len(tok.merges), label)
    ordered = sorted(tok.merges.items(), key=lambda item: item[1])
    merges = [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in ordered]
    notes = [f"its split pattern is {pattern_name(tok.pattern)}"] if tok.pattern else []
    return LearnerOutput(merges, dict(tok.vocab), list(tok.special_tokens), kind, notes)


# -- minbpe .model ----------------------------------------------------------------------------


def _read_minbpe(text: str, label: str) -> LearnerOutput:
    if text.count("\n") > MAX_MERGES + 10_000:
        raise ValueError(f"{label} has {text.count(chr(10)):,} lines; this tool reads at most"
                         f" {MAX_MERGES:,} merges")
    pattern, special_tokens, id_merges = parse_minbpe(text, label)
    _too_many(len(id_merges), label)
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for k, (a, b) in enumerate(id_merges):
        merges.append((vocab[a], vocab[b]))
        vocab[256 + k] = vocab[a] + vocab[b]
    for special, idx in special_tokens.items():
        vocab[idx] = special.encode("utf-8")
    notes = [f"its split pattern is {pattern_name(pattern)}"]
    return LearnerOutput(merges, vocab, list(special_tokens), "minbpe .model", notes)


# -- merges.txt in GPT-2's byte alphabet -------------------------------------------------------

def _merges_txt_lines(text: str) -> list[tuple[int, str]]:
    """The merge lines of a merges.txt with their numbers (no blank lines, no #version)."""
    lines = []
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r").lstrip("\ufeff")
        if line.strip() and not (not lines and line.startswith("#version")):
            lines.append((lineno, line))
    return lines


def _looks_like_merges_txt(text: str) -> bool:
    lines = _merges_txt_lines(text)
    return bool(lines) and all(
        len(fields := line.split(" ")) == 2 and all(fields) for _, line in lines[:1000]
    )


def _read_merges_txt(text: str, label: str, vocab: dict[int, bytes] | None) -> LearnerOutput:
    if text.count("\n") > MAX_MERGES + 10:
        raise ValueError(f"{label} has {text.count(chr(10)):,} lines; this tool reads at most"
                         f" {MAX_MERGES:,} merges")
    merges = []
    line_of = []
    for lineno, line in _merges_txt_lines(text):
        fields = line.split(" ")
        where = f"{label}, line {lineno}"
        if len(fields) != 2 or not all(fields):
            raise ValueError(
                f"{where}: expected a merge: two tokens in GPT-2's byte alphabet separated by one"
                f" space (such as 'Ġ t'), or Python literals; found {shorten(line)}"
            )
        merges.append((gpt2_bytes(fields[0], where), gpt2_bytes(fields[1], where)))
        line_of.append(lineno)
    _check_made(merges, lambda k: f"{label}, line {line_of[k - 1]}")
    specials = [] if vocab is None else _specials_of(vocab, merges)
    return LearnerOutput(merges, vocab, specials, "merges.txt (GPT-2 byte alphabet)", [])


def _read_vocab_json(data: str | bytes) -> dict[int, bytes]:
    """A vocab.json (token in GPT-2's byte alphabet -> id) as id -> bytes."""
    label = "the vocab.json"
    text = _as_text(data, label)
    _check_shape(text, label)
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{label}: not valid JSON ({e})") from None
    if not isinstance(document, dict):
        raise ValueError(f"{label}: expected a JSON object of token -> id")
    _too_big_vocab(len(document), label)
    vocab = {}
    for token, idx in document.items():
        where = f"{label}, entry {shorten(token, 40)}"
        if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
            raise ValueError(f"{where}: expected an id (a whole number >= 0), found {shorten(idx)}")
        vocab[idx] = gpt2_bytes(token, where)
    return vocab


def _specials_of(vocab: dict[int, bytes], merges: list[Pair]) -> list[str]:
    """The vocab's tokens that are neither a byte nor made by a merge: the special tokens."""
    made = {a + b for a, b in merges}
    return [t.decode("utf-8", "replace") for t in vocab.values() if len(t) != 1 and t not in made]


def _check_made(merges: list[Pair], where: Callable[[int], str]) -> None:
    """Every merge joins tokens that exist by then: single bytes or tokens of earlier merges.

    Any trainer, buggy or not, merges tokens it has; a token that does not exist yet means the
    text is not merges (or not in this spelling).
    """
    known = {bytes([b]) for b in range(256)}
    for k, (a, b) in enumerate(merges, 1):
        for token in (a, b):
            if token not in known:
                raise ValueError(
                    f"{where(k)}: merge {k} joins {a!r} and {b!r}, but {token!r} is neither a"
                    " single byte nor a token that an earlier merge made (are these merges,"
                    " in the order they were learned?)"
                )
        known.add(a + b)


# -- Python literals, read with ast only ------------------------------------------------------


_ASSIGNMENT_OR_CALL = regex.compile(r"[A-Za-z_][\w.]*\s*(?:(?::[^=\n]*)?=(?!=)|\()")


def _looks_like_python(head: str) -> bool:
    """Python first, unless every line is two tokens (a merges.txt) and nothing says Python."""
    first_word = regex.match(r"\w*", head).group()
    return (
        head[:1] in ("[", "{", "(")
        or _ASSIGNMENT_OR_CALL.match(head) is not None
        or keyword.iskeyword(first_word)
        or not _looks_like_merges_txt(head)
    )


_LITERAL_NODES = (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.Load)

_NODE_WORDS = {
    ast.Call: "a function call",
    ast.Name: "a name",
    ast.Lambda: "a lambda",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string",
    ast.Attribute: "an attribute",
    ast.Subscript: "an index or slice",
    ast.BinOp: "an operation such as + or *",
    ast.BoolOp: "an operation such as and / or",
    ast.Compare: "a comparison",
    ast.ListComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.GeneratorExp: "a generator",
    ast.NamedExpr: "an assignment expression (:=)",
    ast.Starred: "a starred expression",
    ast.IfExp: "a conditional expression",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}


def _refuse_code(node: ast.AST, text: str, label: str) -> ValueError:
    what = _NODE_WORDS.get(type(node), f"Python code ({type(node).__name__})")
    source = ast.get_source_segment(text, node) or ""
    return ValueError(
        f"{label}, line {getattr(node, 'lineno', '?')}: found {what}"
        f"{' ' + shorten(source, 50) if source else ''}; only literals are read (bytes, strings,"
        " numbers, lists, tuples, dicts) and nothing is run"
    )


def _literal(node: ast.AST, text: str, label: str) -> Any:
    """The value of a literal node, after checking that every node in it is a literal."""
    for inner in ast.walk(node):
        if isinstance(inner, _LITERAL_NODES):
            continue
        if (  # a negative number, such as -1
            isinstance(inner, ast.UnaryOp)
            and isinstance(inner.op, ast.USub | ast.UAdd)
            and isinstance(inner.operand, ast.Constant)
        ) or isinstance(inner, ast.USub | ast.UAdd):
            continue
        raise _refuse_code(inner, text, label)
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, MemoryError, RecursionError) as e:
        raise ValueError(f"{label}, line {getattr(node, 'lineno', '?')}: not a literal"
                         f" ({e})") from None


class _Value(NamedTuple):
    name: str | None  # the name it was assigned to (None for a bare literal)
    value: Any
    node: ast.AST


def _python_values(text: str, label: str) -> list[_Value]:
    """The literals of the text: one bare literal, or ``name = literal`` statements."""
    if len(text) > MAX_PYTHON_CHARS:
        raise ValueError(
            f"{label} has {len(text):,} characters of Python; this tool reads at most"
            f" {MAX_PYTHON_CHARS:,} (save larger outputs as a merges.txt or a minbpe .model)"
        )
    _check_shape(text, label)
    try:
        tree = ast.parse(text, filename=label, mode="exec")
    except SyntaxError as e:
        raise ValueError(
            f"{label}, line {e.lineno or 1}: not merges: expected Python literals such as"
            f" merges = [(b' ', b't'), ...], or a merges.txt ({e.msg})"
        ) from None
    except (ValueError, MemoryError, RecursionError) as e:
        raise ValueError(f"{label}: cannot be read as Python literals ({e})") from None
    values = []
    for statement in tree.body:
        if isinstance(statement, ast.Expr):
            values.append(_Value(None, _literal(statement.value, text, label), statement.value))
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            value = _literal(statement.value, text, label)
            values.append(_Value(statement.targets[0].id, value, statement.value))
        elif (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.value is not None
        ):  # merges: list[tuple[bytes, bytes]] = [...]; the annotation is never evaluated
            value = _literal(statement.value, text, label)
            values.append(_Value(statement.target.id, value, statement.value))
        else:
            kind = type(statement).__name__
            words = {"Import": "an import", "ImportFrom": "an import",
                     "FunctionDef": "a function definition", "ClassDef": "a class definition"}
            what = words.get(kind, f"a statement ({kind})")
            raise ValueError(
                f"{label}, line {statement.lineno}: found {what};"
                " only literals and `name = literal` lines are read, and nothing is run"
            )
    if not values:
        raise ValueError(f"{label} is empty: expected merges such as [(b' ', b't'), ...]")
    return values


def _kind_of(item: _Value) -> str:
    """What a literal holds: "merges", "vocab", "specials" or "both" ((vocab, merges))."""
    name = (item.name or "").lower()
    value = item.value
    for word, kind in (("merge", "merges"), ("vocab", "vocab"), ("special", "specials")):
        if word in name:
            return kind
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], dict) and (
        isinstance(value[1], list | tuple)
    ):
        return "both"  # what CS336's train_bpe returns: (vocab, merges)
    if isinstance(value, dict):
        keys = list(islice(value, 1))
        return "merges" if keys and isinstance(keys[0], tuple) else "vocab"
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, str) for v in value):
            return "specials"
        return "merges"
    return "unknown"


def _read_python(text: str, label: str) -> LearnerOutput:
    found: dict[str, _Value] = {}
    for item in _python_values(text, label):
        kind = _kind_of(item)
        line = getattr(item.node, "lineno", "?")
        if kind == "unknown":
            raise ValueError(
                f"{label}, line {line}: found {shorten(item.value)}: expected merges (a list of"
                " pairs such as [(b' ', b't')] or a dict such as {(32, 116): 256}) or a vocab (a"
                " dict such as {0: b'<|endoftext|>', 1: b'\\x00'})"
            )
        if kind == "both":
            vocab_node, merges_node = item.node.elts if isinstance(item.node, ast.Tuple) else (
                item.node, item.node)
            parts = [("vocab", _Value("vocab", item.value[0], vocab_node)),
                     ("merges", _Value("merges", item.value[1], merges_node))]
        else:
            parts = [(kind, item)]
        for part_kind, part in parts:
            if part_kind in found:
                raise ValueError(f"{label}, line {line}: a second {part_kind} (the first is on"
                                 f" line {getattr(found[part_kind].node, 'lineno', '?')})")
            found[part_kind] = part
    if "merges" not in found:
        raise ValueError(
            f"{label} has a vocab but no merges: a vocab does not say which two tokens each merge"
            " joined; paste the merges too, such as merges = [(b' ', b't'), ...]"
        )
    vocab = _python_vocab(found["vocab"], label) if "vocab" in found else None
    merges = _python_merges(found["merges"], vocab, label)
    specials: list[str] = []
    notes = []
    if "specials" in found:
        specials = _python_specials(found["specials"], label)
    elif vocab is not None:
        specials = _specials_of(vocab, merges)
    if vocab is not None:
        tokens = set(vocab.values())
        missing = sum(1 for a, b in merges if a + b not in tokens)
        if missing:
            notes.append(f"the vocab lacks {missing:,} of the tokens the merges make")
    names = ", ".join(k for k in ("vocab", "merges", "specials") if k in found)
    return LearnerOutput(merges, vocab, specials, f"Python literals ({names})", notes)


def _item_where(label: str, value: _Value, k: int) -> str:
    """Where item ``k`` (1-based) of a list or dict literal is, for messages."""
    node = value.node
    elements = getattr(node, "elts", None) or getattr(node, "keys", None) or []
    line = getattr(elements[k - 1], "lineno", None) if k - 1 < len(elements) else None
    name = value.name or ("the dict" if isinstance(value.value, dict) else "the list")
    return f"{label}, line {line}: item {k} of {name}" if line else f"{label}: item {k} of {name}"


def _python_vocab(found: _Value, label: str) -> dict[int, bytes]:
    vocab = found.value
    if not isinstance(vocab, dict):
        raise ValueError(f"{label}: {found.name or 'the vocab'} is {shorten(vocab)}: expected a"
                         " dict of id -> bytes such as {0: b'<|endoftext|>', 1: b'\\x00'}")
    _too_big_vocab(len(vocab), label)
    for k, (idx, token) in enumerate(vocab.items(), 1):
        if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0 or not isinstance(
            token, bytes
        ):
            raise ValueError(f"{_item_where(label, found, k)} is {shorten({idx: token})}: expected"
                             " id: bytes, such as 97: b'a'")
    return vocab


def _python_specials(found: _Value, label: str) -> list[str]:
    value = found.value
    if isinstance(value, dict):  # {"<|endoftext|>": 100257}: the names are what count
        value = list(value)
    if not isinstance(value, list | tuple) or not all(isinstance(s, str) for s in value):
        raise ValueError(f"{label}, line {getattr(found.node, 'lineno', '?')}: {found.name} is"
                         f" {shorten(value)}: expected special tokens such as ['<|endoftext|>']")
    return list(value)


def _is_id(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _python_merges(found: _Value, vocab: dict[int, bytes] | None, label: str) -> list[Pair]:
    value = found.value
    name = found.name or ("the dict" if isinstance(value, dict) else "the list")
    if isinstance(value, dict):  # {(101, 32): 256, ...}: the values give the order
        _too_many(len(value), label)
        entries = []
        for k, (pair, new) in enumerate(value.items(), 1):
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(map(_is_id, pair))
                    and _is_id(new)):
                raise ValueError(f"{_item_where(label, found, k)} is {shorten({pair: new})}:"
                                 " expected (id, id): new id, such as (101, 32): 256")
            entries.append((pair, new))
        keys = getattr(found.node, "keys", [])
        if len(keys) > len(value):  # a literal with a key twice keeps the last one silently
            seen: set = set()
            for k, key in enumerate(keys, 1):
                pair = ast.literal_eval(key)
                if pair in seen:
                    raise ValueError(f"{_item_where(label, found, k)}: the pair {pair} appears"
                                     " twice")
                seen.add(pair)
        news = [new for _, new in entries]
        if len(set(news)) != len(news):
            twice = next(n for n in news if news.count(n) > 1)
            raise ValueError(f"{label}: two merges of {name} make id {twice}")
        entries.sort(key=lambda entry: entry[1])
        return _bytes_of_id_merges(entries, vocab, label, name)
    if not isinstance(value, list | tuple):
        raise ValueError(f"{label}: {name} is {shorten(value)}: expected a list of merges")
    _too_many(len(value), label)
    if not value:
        return []
    first = value[0]
    ids = isinstance(first, tuple | list) and len(first) == 2 and all(map(_is_id, first))
    merges = []
    for k, pair in enumerate(value, 1):
        ok = isinstance(pair, tuple | list) and len(pair) == 2 and all(
            map(_is_id, pair) if ids else (isinstance(x, bytes) for x in pair)
        )
        if not ok:
            expected = ("a pair of ids such as (101, 32), like item 1" if ids
                        else "a pair of bytes such as (b' ', b't')")
            hint = ""
            if isinstance(pair, tuple | list) and any(isinstance(x, str) for x in pair):
                hint = " (write tokens as bytes, b'...', not str)"
            raise ValueError(f"{_item_where(label, found, k)} is {shorten(pair)}: expected"
                             f" {expected}{hint}")
        merges.append(tuple(pair))
    if ids:
        return _bytes_of_id_merges([(pair, 256 + k) for k, pair in enumerate(merges)], vocab,
                                   label, name)
    _check_made(merges, lambda k: _item_where(label, found, k))
    return merges


def _bytes_of_id_merges(
    entries: list[tuple[tuple[int, int], int]],
    vocab: dict[int, bytes] | None,
    label: str,
    name: str,
) -> list[Pair]:
    """Id merges ``((a, b), new id)`` in order as bytes pairs: with the learner's vocab when
    given, else ids 0..255 are the bytes and every merge makes its new id."""
    table = dict(vocab) if vocab is not None else {i: bytes([i]) for i in range(256)}
    merges = []
    for k, ((a, b), new) in enumerate(entries, 1):
        for x in (a, b):
            if x < 0:
                raise ValueError(f"{label}: merge {k} of {name}, {(a, b)}, uses {x}, which is not"
                                 " an id (ids are whole numbers >= 0)")
            if x not in table:
                made = "is not in the vocab" if vocab is not None else (
                    f"is not made yet: ids 0..255 are the bytes, and this merge makes {new}")
                raise ValueError(f"{label}: merge {k} of {name}, {(a, b)}, uses id {x}, which"
                                 f" {made}")
        merges.append((table[a], table[b]))
        if vocab is None:
            table[new] = table[a] + table[b]
    return merges


def _looks_like_tiktoken(head: str) -> bool:
    """Lines of ``base64-token rank`` (base64 comes in groups of 4 characters)."""
    lines = [line.strip() for line in head.split("\n", 4)[:4] if line.strip()]
    return bool(lines) and all(
        regex.fullmatch(r"[A-Za-z0-9+/]+={0,2} \d+", line) and len(line.split(" ")[0]) % 4 == 0
        for line in lines
    )


# ---------------------------------------------------------------------------------------------
# 2. Comparing


class MergeComparison(NamedTuple):
    """Two lists of merges side by side. ``matches``: equal (the same merges, in the same order,
    as many). When one list is the other's beginning nothing differs (``first_difference`` is
    None) but they are not equal."""

    matches: bool
    first_difference: int | None  # the 1-based merge step where they differ
    mine_pair: Pair | None  # at that step
    reference_pair: Pair | None
    common: int  # merges equal before the first difference
    lengths: tuple[int, int]  # (mine, reference)
    summary: str


def merge_pairs(merges: object) -> list[Pair]:
    """Merges as a list of bytes pairs, from a list of pairs, a ``LearnerOutput`` or a tokenizer.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 258)
    >>> merge_pairs(tok)
    [(b'a', b'a'), (b'aa', b'a')]
    """
    if isinstance(merges, LearnerOutput):
        return list(merges.merges)
    if isinstance(merges, Tokenizer):
        ordered = sorted(merges.merges.items(), key=lambda item: item[1])
        return [(merges.vocab[a], merges.vocab[b]) for (a, b), _ in ordered]
    if isinstance(merges, str | bytes) or not isinstance(merges, Iterable):
        raise ValueError(f"expected merges as a list of (bytes, bytes) pairs, not"
                         f" {shorten(merges)}")
    pairs = list(merges)
    for k, pair in enumerate(pairs, 1):
        if not (isinstance(pair, tuple | list) and len(pair) == 2
                and all(isinstance(x, bytes) for x in pair)):
            raise ValueError(f"item {k} of the merges is {shorten(pair)}: expected a pair of"
                             " bytes such as (b' ', b't')")
    return [(a, b) for a, b in pairs]


def compare_merges(mine: object, reference: object) -> MergeComparison:
    """Where two lists of merges part: the first step at which they differ, if any.

    Both may be lists of bytes pairs, ``LearnerOutput``s or tokenizers; merges compare by their
    tokens' bytes, so two numberings of the same merges match.

    >>> compare_merges([(b"a", b"b")], [(b"a", b"b"), (b"ab", b"c")]).summary
    "Your 1 merge matches the reference's first; the reference made 1 more (2 in all)."
    """
    a, b = merge_pairs(mine), merge_pairs(reference)
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    lengths = (len(a), len(b))
    if common < min(lengths):
        step = common + 1
        first = ("Your merges differ from the first one" if common == 0
                 else f"Your merges match the first {common:,}")
        summary = (f"{first}; at merge {step:,} you merged {_show(a[common])} and the reference"
                   f" merged {_show(b[common])}.")
        return MergeComparison(False, step, a[common], b[common], common, lengths, summary)
    if lengths[0] == lengths[1]:
        summary = (f"Your merges match the reference's {_plural(common, 'merge')}." if common
                   else "Neither has any merges.")
        return MergeComparison(True, None, None, None, common, lengths, summary)
    if lengths[0] < lengths[1]:
        more = lengths[1] - lengths[0]
        if common == 0:
            summary = f"You have no merges; the reference made {more:,}."
        else:
            verb = "match" if common > 1 else "matches"
            first = "first" if common == 1 else f"first {common:,}"
            summary = (f"Your {_plural(common, 'merge')} {verb} the reference's {first}; the"
                       f" reference made {more:,} more ({lengths[1]:,} in all).")
    else:
        more = lengths[0] - lengths[1]
        if common == 0:
            summary = f"The reference made no merges; you made {more:,}."
        else:
            summary = (f"The reference's {_plural(common, 'merge')} match your first"
                       f" {common:,}; you made {more:,} more ({lengths[0]:,} in all).")
    return MergeComparison(False, None, None, None, common, lengths, summary)


# ---------------------------------------------------------------------------------------------
# 3. The reference, and the step where the learner's merges leave it


@dataclass(frozen=True)
class Setup:
    """How one trainer is set up: the reference's settings, or the same with one mistake.

    The last five fields are the mistakes' switches; the reference leaves them as they are.
    """

    pattern: str
    vocab_size: int
    special_tokens: tuple[str, ...] = ()
    tie_rule: str = "seen"
    cut_at_specials: bool = True  # False: the special tokens' text is trained on as text
    specials_in_vocab: bool = True  # False: vocab_size - 256 merges, specials not counted
    use_counts: bool = True  # False: each distinct chunk counts once, however often it occurs
    count: str = "overlapping"  # how pairs are counted in a chunk: a key of COUNTERS
    merge: str = "left_to_right"  # how a merge is applied in a chunk: a key of MERGERS

    @property
    def num_merges(self) -> int:
        specials = len(self.special_tokens) if self.specials_in_vocab else 0
        return max(self.vocab_size - 256 - specials, 0)


def training_chunks(text: str, setup: Setup) -> list[tuple[bytes, int]]:
    """The distinct chunks a trainer counts, with how often each occurs, in first-seen order:
    cut at the special tokens, then split with the pattern (as ``Tokenizer.train`` does).

    >>> training_chunks("ab ab!", Setup(GPT4_SPLIT_PATTERN, 300))
    [(b'ab', 1), (b' ab', 1), (b'!', 1)]
    """
    text = clean_text(text)
    specials = list(setup.special_tokens)
    parts = cut_at_specials(text, specials) if setup.cut_at_specials else [text]
    splitter = Tokenizer(setup.pattern)
    counts = Counter(piece for part in parts for piece in splitter.split(part))
    return [(chunk.encode("utf-8"), n if setup.use_counts else 1) for chunk, n in counts.items()]


def _check_settings(text: object, pattern: object, special_tokens: object) -> tuple[str, tuple]:
    if not isinstance(text, str):
        raise ValueError(f"the text must be a str, not {type(text).__name__}")
    if len(text) > MAX_CHECK_CHARS:
        raise ValueError(f"the text has {len(text):,} characters; the check trains on at most"
                         f" {MAX_CHECK_CHARS:,} (a few thousand show most mistakes)")
    if pattern is None:
        pattern = ""
    if not isinstance(pattern, str):
        raise ValueError(f"pattern must be a split pattern (str) or '' for none, not"
                         f" {shorten(pattern)}")
    return pattern, tuple(training_specials(special_tokens))


def train_reference(
    text: str,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
) -> Tokenizer:
    """The reference: ``Tokenizer.train`` with the learner's inputs (``pattern=""``: no split)."""
    pattern, specials = _check_settings(text, pattern, special_tokens)
    tok = RegexTokenizer(pattern) if pattern else BasicTokenizer()
    tok.train(text, vocab_size, tie_rule=tie_rule, special_tokens=list(specials))
    return tok


class CountedPair(NamedTuple):
    pair: Pair
    count: int  # occurrences among the reference's tokens at the step (0: never side by side)


class StepExplanation(NamedTuple):
    """The step where the learner's merges leave the reference's, seen in the reference's tokens
    just before it (after ``step - 1`` merges)."""

    step: int
    mine: CountedPair
    reference: CountedPair
    tied: list[CountedPair]  # every pair as frequent as the reference's, in the order first seen
    winners: dict[str, Pair]  # what each tie rule picks among ``tied``
    summary: str


def explain_step(text: str, reference: Tokenizer, step: int, mine_pair: Pair,
                 setup: Setup) -> StepExplanation:
    """Count every pair of the reference's tokens after ``step - 1`` merges and put the
    learner's pair (the one it merged at ``step``) beside the reference's."""
    ordered = sorted(reference.merges.items(), key=lambda item: item[1])
    before = dict(ordered[: step - 1])
    ref_ids = ordered[step - 1][0]
    vocab = reference.vocab
    counts: dict[tuple[int, int], int] = {}  # in the order the pairs are first seen
    for chunk, n in training_chunks(text, setup):
        ids = apply_merges(list(chunk), before)
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + n
    by_bytes: dict[Pair, int] = {}
    for (a, b), n in counts.items():
        key = (vocab[a], vocab[b])
        by_bytes[key] = by_bytes.get(key, 0) + n
    ref_pair = (vocab[ref_ids[0]], vocab[ref_ids[1]])
    top = counts[ref_ids]
    tied_ids = [pair for pair, n in counts.items() if n == top]
    winners = {
        "seen": tied_ids[0],
        "bytes": max(tied_ids, key=lambda p: (vocab[p[0]], vocab[p[1]])),
        "ids": min(tied_ids),
    }
    winners_bytes = {rule: (vocab[a], vocab[b]) for rule, (a, b) in winners.items()}
    mine = CountedPair(mine_pair, by_bytes.get(mine_pair, 0))
    ref = CountedPair(ref_pair, top)
    tied = [CountedPair((vocab[a], vocab[b]), top) for a, b in tied_ids]
    made = {vocab[b] for b in range(256)} | {vocab[i] for i in before.values()}  # tokens by then
    summary = _explain_in_words(step, mine, ref, tied, winners_bytes, setup.tie_rule, made)
    return StepExplanation(step, mine, ref, tied, winners_bytes, summary)


def _explain_in_words(step: int, mine: CountedPair, ref: CountedPair, tied: list[CountedPair],
                      winners: dict[str, Pair], rule: str, tokens: set[bytes]) -> str:
    where = f"At merge {step:,}"
    if mine.count == ref.count:
        others = len(tied) - 2
        tie = "a tie" if others <= 0 else f"a tie with {_plural(others, 'other pair')}"
        picks = [r for r in TIE_RULES if winners[r] == mine.pair]
        said = (f"{where} your pair {_show(mine.pair)} and the reference's {_show(ref.pair)} both"
                f" occur {_plural(mine.count, 'time')}: {tie}. The reference breaks ties by the"
                f" {rule!r} rule ({TIE_RULE_WORDS[rule]}).")
        if picks:
            return said + f" Your pick is the one the {picks[0]!r} rule makes."
        return said + " None of the three rules picks your pair first."
    if mine.count == 0:
        missing = [t for t in mine.pair if t not in tokens]
        why = (f": the reference has no token {missing[0]!r} by then" if missing
               else ": its two tokens are never side by side there")
        return (f"{where} your pair {_show(mine.pair)} does not occur in the reference's tokens"
                f"{why}. The reference merged {_show(ref.pair)}, which occurs"
                f" {_plural(ref.count, 'time')}. Your tokens or counts parted from the"
                " reference's earlier.")
    return (f"{where} your pair {_show(mine.pair)} occurs {_plural(mine.count, 'time')} in the"
            f" reference's tokens, and the reference's {_show(ref.pair)}"
            f" {_plural(ref.count, 'time')}, the most of any pair: your counts differ from the"
            " reference's.")


class CheckReport(NamedTuple):
    """Everything ``check_merges`` found, with one paragraph for people (``summary``)."""

    comparison: MergeComparison
    explanation: StepExplanation | None  # None when nothing differs step by step
    diagnoses: list[Diagnosis]  # the likely mistakes, most likely first ([] when it matches)
    reference: Tokenizer
    summary: str


def check_merges(
    mine: object,
    text: str,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
    with_diagnosis: bool = True,
) -> CheckReport:
    """Train the reference with the learner's inputs, compare, explain the first difference and
    (``with_diagnosis``) replay the bug zoo to find the likely mistake.

    ``mine``: the learner's merges (bytes pairs, a ``LearnerOutput`` or a tokenizer);
    ``pattern``: the split pattern ("" for none); ``special_tokens`` count in ``vocab_size``.

    >>> r = check_merges([(b"z", b"a")], "mzab", pattern="", vocab_size=257)
    >>> r.comparison.first_difference, r.explanation.mine.count, r.explanation.reference.count
    (1, 1, 1)
    >>> r.explanation.winners
    {'seen': (b'm', b'z'), 'bytes': (b'z', b'a'), 'ids': (b'a', b'b')}
    >>> [(d.mistake.key, d.explains_all) for d in r.diagnoses]
    [('tie_rule', True)]
    """
    pattern, specials = _check_settings(text, pattern, special_tokens)
    mine_pairs = merge_pairs(mine)
    _too_many(len(mine_pairs), "your merges")
    reference = train_reference(text, pattern=pattern, vocab_size=vocab_size,
                                special_tokens=specials, tie_rule=tie_rule)
    setup = Setup(pattern, vocab_size, specials, tie_rule)
    comparison = compare_merges(mine_pairs, reference)
    explanation = None
    if comparison.first_difference is not None:
        explanation = explain_step(text, reference, comparison.first_difference,
                                   comparison.mine_pair, setup)
    diagnoses = _diagnose(mine_pairs, text, setup, comparison) if with_diagnosis else []
    lines = [comparison.summary]
    if explanation is not None:
        lines.append(explanation.summary)
    if diagnoses:
        lines.append("Most likely: " + diagnoses[0].summary)
    elif with_diagnosis and not comparison.matches:
        lines.append("None of the known mistakes gives your merges.")
    return CheckReport(comparison, explanation, diagnoses, reference, " ".join(lines))


def explain_difference(
    text: str,
    comparison_or_mine: object,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
) -> StepExplanation | None:
    """The first differing step explained, or None when no step differs: ``check_merges``
    without the diagnosis. Give the learner's merges, or a ``MergeComparison`` of them with the
    reference trained on the same inputs.

    >>> explain_difference("mzab", [(b"a", b"b")], pattern="", vocab_size=257).winners["ids"]
    (b'a', b'b')
    """
    if not isinstance(comparison_or_mine, MergeComparison):
        return check_merges(comparison_or_mine, text, pattern=pattern, vocab_size=vocab_size,
                            special_tokens=special_tokens, tie_rule=tie_rule,
                            with_diagnosis=False).explanation
    comparison = comparison_or_mine
    if comparison.first_difference is None:
        return None
    reference = train_reference(text, pattern=pattern, vocab_size=vocab_size,
                                special_tokens=special_tokens, tie_rule=tie_rule)
    setup = Setup(pattern or "", vocab_size, tuple(special_tokens), tie_rule)
    return explain_step(text, reference, comparison.first_difference, comparison.mine_pair, setup)


# ---------------------------------------------------------------------------------------------
# 4. A trainer to bend: the plain loop, with hooks that make each mistake


def count_pairs_without_overlap(ids: list[int]) -> dict[tuple[int, int], int]:
    """A MISTAKE: count pairs as ``str.count`` counts, skipping a copy that overlaps the last.

    >>> count_pairs_without_overlap([97, 97, 97, 97])   # "aaaa": the right count is 3
    {(97, 97): 2}
    """
    counts: dict[tuple[int, int], int] = {}
    last_pair, last_start = None, -2
    for i, pair in enumerate(zip(ids, ids[1:])):
        if pair == last_pair and i == last_start + 1:
            continue  # this copy shares a token with the one just counted
        counts[pair] = counts.get(pair, 0) + 1
        last_pair, last_start = pair, i
    return counts


def merge_right_to_left(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """A MISTAKE: replace the pair's occurrences scanning from the right.

    >>> merge_right_to_left([97, 97, 97], (97, 97), 256)   # the right answer is [256, 97]
    [97, 256]
    """
    out = []
    i = len(ids) - 1
    while i >= 0:
        if i >= 1 and ids[i - 1] == pair[0] and ids[i] == pair[1]:
            out.append(idx)
            i -= 2
        else:
            out.append(ids[i])
            i -= 1
    out.reverse()
    return out


def merge_first_only(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """A MISTAKE: replace only the first occurrence of the pair.

    >>> merge_first_only([1, 2, 3, 1, 2], (1, 2), 256)   # the right answer is [256, 3, 256]
    [256, 3, 1, 2]
    """
    for i in range(len(ids) - 1):
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            return ids[:i] + [idx] + ids[i + 2 :]
    return ids


COUNTERS: dict[str, Callable[[list[int]], dict[tuple[int, int], int]]] = {
    "overlapping": get_stats,  # right: every adjacent pair counts
    "no_overlap": count_pairs_without_overlap,
}
MERGERS: dict[str, Callable[[list[int], tuple[int, int], int], list[int]]] = {
    "left_to_right": merge,  # right: every occurrence, from the left
    "right_to_left": merge_right_to_left,
    "first_only": merge_first_only,
}


def replay_training(
    chunks: list[tuple[bytes, int]],
    num_merges: int,
    *,
    tie_rule: str = "seen",
    count_pairs: Callable[[list[int]], dict[tuple[int, int], int]] = get_stats,
    merge_pair: Callable[[list[int], tuple[int, int], int], list[int]] = merge,
) -> Iterator[Pair]:
    """The plain trainer, one merge at a time: count the pairs, take the most frequent (ties by
    the rule), merge it. Yields each merge as a bytes pair.

    ``count_pairs(ids)`` counts the pairs of one chunk; ``merge_pair(ids, pair, new_id)`` merges
    in one chunk: hooks, so that a mistake can be put in. With the defaults it makes exactly
    ``train_bpe``'s merges (the tests check), more slowly.

    It keeps the total counts and, for each pair, which chunks hold it; after a merge only those
    chunks are merged and counted again (every chunk occurs ``n`` times: its counts weigh n).

    >>> list(replay_training([(b"aaabdaaabac", 1)], 3))
    [(b'a', b'a'), (b'aa', b'a'), (b'aaa', b'b')]
    >>> list(replay_training([(b"aaabdaaabac", 1)], 3, merge_pair=merge_right_to_left))
    [(b'a', b'a'), (b'a', b'aa'), (b'aaa', b'b')]
    """
    if tie_rule not in TIE_RULES:
        raise ValueError(f"tie_rule must be one of {', '.join(TIE_RULES)}, not {tie_rule!r}")
    words = [list(chunk) for chunk, _ in chunks]
    weights = [n for _, n in chunks]
    vocab = [bytes([b]) for b in range(256)]
    counts: dict[tuple[int, int], int] = {}  # pair -> occurrences in the whole text
    where: dict[tuple[int, int], set[int]] = {}  # pair -> the chunks that hold it
    pairs_in: list[dict[tuple[int, int], int]] = [{} for _ in words]

    def recount(i: int, sign: int) -> None:
        """Take chunk i's pairs out of the totals (sign -1) or put them in (+1)."""
        for pair, n in pairs_in[i].items():
            total = counts.get(pair, 0) + sign * n * weights[i]
            if total:
                counts[pair] = total
            else:
                del counts[pair]
            if sign > 0:
                where.setdefault(pair, set()).add(i)
            else:
                where[pair].discard(i)
                if not where[pair]:
                    del where[pair]

    def first_seen(pair: tuple[int, int]) -> tuple[int, int]:
        """Where the pair first occurs: (chunk, position); chunks are in first-seen order."""
        i = min(where[pair])
        ids = words[i]
        return i, next(j for j in range(len(ids) - 1) if (ids[j], ids[j + 1]) == pair)

    for i, ids in enumerate(words):
        pairs_in[i] = count_pairs(ids)
        recount(i, +1)
    for step in range(num_merges):
        if not counts:
            return
        top = max(counts.values())
        tied = [pair for pair, n in counts.items() if n == top]
        if tie_rule == "seen":
            pair = min(tied, key=first_seen)
        elif tie_rule == "bytes":
            pair = max(tied, key=lambda p: (vocab[p[0]], vocab[p[1]]))
        else:  # "ids"
            pair = min(tied)
        new_id = 256 + step
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        yield vocab[pair[0]], vocab[pair[1]]
        for i in sorted(where[pair]):
            recount(i, -1)
            words[i] = merge_pair(words[i], pair, new_id)
            pairs_in[i] = count_pairs(words[i])
            recount(i, +1)


def replay(text: str, setup: Setup, steps: int | None = None) -> list[Pair]:
    """The first ``steps`` merges (default: all) a trainer set up as ``setup`` learns from text.

    The mistakes that change only the trainer's inputs or its tie rule count and merge as the
    reference does, so ``train_bpe`` gives their merges, fast; the others run the plain loop
    with their hooks (``replay_training``), for at most ``MAX_PLAIN_STEPS`` merges.

    >>> replay("abaaa", Setup("", 257)), replay("abaaa", Setup("", 257, count="no_overlap"))
    ([(b'a', b'a')], [(b'a', b'b')])
    """
    chunks = training_chunks(text, setup)
    steps = setup.num_merges if steps is None else min(steps, setup.num_merges)
    if setup.count == "overlapping" and setup.merge == "left_to_right":
        vocab = {i: bytes([i]) for i in range(256)}
        out = []
        for record in train_bpe(chunks, steps, tie_rule=setup.tie_rule).history:
            a, b = record.pair
            out.append((vocab[a], vocab[b]))
            vocab[record.id] = record.token
        return out
    steps = min(steps, MAX_PLAIN_STEPS)
    merges = replay_training(chunks, steps, tie_rule=setup.tie_rule,
                             count_pairs=COUNTERS[setup.count], merge_pair=MERGERS[setup.merge])
    return list(islice(merges, steps))


# ---------------------------------------------------------------------------------------------
# 5. The bug zoo


class Mistake(NamedTuple):
    """A known mistake: what the learner sees, and the idea of the fix (in words, not code)."""

    key: str
    title: str
    symptom: str
    fix: str
    stage: str  # "training" or "encoding"
    demo_text: str  # a small text that shows it (zoo_demo's default)


_DEMO_PROSE = (
    "the cat sat on the mat. the dog sat on the log. then the cat and the dog ran to the mat,"
    " and the dog sat there. 'It's the cat's mat', they said; the cat's owner said it's 1984."
)

MISTAKES: list[Mistake] = [
    Mistake(
        "tie_rule", "Ties broken by another rule",
        "Your merges agree with the reference's for a while and then differ at a step where"
        " your pair and the reference's are equally frequent.",
        "Decide which of the equally frequent pairs wins and use the reference's rule: the pair"
        " seen first in the text (a dict keeps pairs in the order they were first counted, and"
        " max returns the first of equals), the greatest pair of token bytes (CS336), or the"
        " smallest pair of ids.",
        "training", "abcd bcde cdef defg abcd bcde",
    ),
    Mistake(
        "overlap", "Overlapping pairs counted once",
        "In a run such as b'aaaa' you count the pair b'a' + b'a' twice instead of three times:"
        " texts with runs of one character (spaces, '----', 'aaaa') part first.",
        "Every adjacent pair counts, even two that share a token: move one position at a time"
        " and count each pair of neighbours. Only merging has to skip the token it has used.",
        "training", "aaaa aaa aaaaa baaab aaaaaa ab ab ab ab",
    ),
    Mistake(
        "no_split", "Pairs counted across chunks",
        "You learn merges that join a word to the space or the punctuation after it"
        " (b'e' + b' ', b'.' + b'\\n'), which a tokenizer with a split pattern never makes.",
        "Split the text with the pattern first and count pairs inside each chunk only; keep the"
        " chunks apart (a list of chunks, or a count per distinct chunk), never one long stream.",
        "training", _DEMO_PROSE,
    ),
    Mistake(
        "other_pattern", "Another split pattern",
        "Your merges differ around numbers, contractions ('s, 're), capitals, newlines or runs"
        " of spaces: where the GPT-2, GPT-4 and GPT-4o patterns cut the text differently.",
        "Use exactly the reference's pattern (copy the constant), with the regex module rather"
        " than re, which does not know \\p{L}.",
        "training", "TheCat saw 12345 cats. TheCat saw 12345 dogs. TheCat and TheDog saw 123456"
        " birds.",
    ),
    Mistake(
        "specials_not_cut", "Special tokens not cut out",
        "You learn merges made of a special token's text, such as b'<|' or b'endoftext', or"
        " merges that join the text on both sides of it.",
        "Cut the text at every special token first (the longest first), train on the pieces"
        " between them, and add the special tokens to the vocabulary afterwards.",
        "training", "the end.<|endoftext|>the start.<|endoftext|>the end of the start."
        "<|endoftext|>the cat.<|endoftext|>the dog.",
    ),
    Mistake(
        "specials_not_counted", "Special tokens not counted in the vocabulary size",
        "Your merges are the reference's with one more at the end for every special token, so"
        " your vocabulary is larger than vocab_size.",
        "The vocabulary holds the 256 bytes, the merges and the special tokens: make vocab_size"
        " - 256 - (the number of special tokens) merges.",
        "training", "the end.<|endoftext|>the start.<|endoftext|>the cat sat on the mat.",
    ),
    Mistake(
        "vocab_off_by_one", "Vocabulary size off by one",
        "Your merges are the reference's with one more, or one fewer, at the end.",
        "Make exactly vocab_size - 256 merges (minus the special tokens): check the loop's range"
        " and that the first new id is 256.",
        "training", _DEMO_PROSE,
    ),
    Mistake(
        "ignore_counts", "Chunk counts ignored",
        "Your merges favour pairs that occur in many different words over pairs in a few very"
        " frequent words (' the', ' of'): each distinct chunk counted once.",
        "When you count each distinct chunk once (a dict of chunk -> how often it occurs),"
        " multiply the pairs it holds by how often it occurs.",
        "training", "the the the the the the cat hat mat bat sat rat the the the the",
    ),
    Mistake(
        "right_to_left", "Merges applied right to left",
        "In a run such as b'aaa' your merge of b'a' + b'a' leaves b'a', b'aa' instead of b'aa',"
        " b'a', so merges built on runs of one character differ.",
        "Replace the pair's occurrences from the left, and after replacing one, go on after it"
        " (skip both of its tokens).",
        "training", "aaa aaa aaab aaab caaa caaa baaa",
    ),
    Mistake(
        "first_only", "Merge applied to the first occurrence only",
        "The same pair comes back in later merges (your list repeats a pair) and your counts"
        " fall more slowly than the reference's.",
        "After choosing a pair, replace every occurrence of it in every chunk before counting"
        " again.",
        "training", "abababab abababab cdcd",
    ),
    Mistake(
        "encode_by_frequency", "Encoding by frequency instead of rank",
        "Training agrees with the reference but encoding a sentence gives other ids: the"
        " sentence's own most frequent pair is merged first.",
        "When encoding, apply merges in the order they were learned: among the chunk's pairs"
        " that are merges, take the one learned first (the lowest rank), not the most frequent.",
        "encoding", "banana bandana",
    ),
    Mistake(
        "encode_right_to_left", "Encoding: merges applied right to left",
        "Encoding agrees except in runs of one character ('aaa', spaces), where the tokens are"
        " grouped from the right.",
        "Replace a pair's occurrences from the left, skipping both tokens of each one replaced.",
        "encoding", "aaa aaaaa",
    ),
    Mistake(
        "encode_first_only", "Encoding: each merge applied once",
        "Words with a repeated piece ('banana', runs of spaces) keep unmerged copies of it.",
        "Apply a merge to every occurrence in the chunk before moving on to the next merge.",
        "encoding", "banana abab",
    ),
    Mistake(
        "encode_no_split", "Encoding without the split pattern",
        "Ids differ where a learned pair stands across two chunks, e.g. digits or spaces"
        " merged across the places the pattern cuts.",
        "Split the text with the same pattern as in training and encode each chunk on its own.",
        "encoding", "1234 12345",
    ),
]

MISTAKES_BY_KEY = {m.key: m for m in MISTAKES}


def _variants(key: str, reference: Setup) -> list[tuple[str, Setup]]:
    """The ways the mistake ``key`` applies to the reference's settings: ``(in words, setup)``.
    None when it cannot happen there (no special tokens, no split pattern to ignore)."""
    ref = reference
    specials = ref.special_tokens
    if key == "tie_rule":
        return [
            (f"you broke ties by the {rule!r} rule ({TIE_RULE_WORDS[rule]}); the reference uses"
             f" {ref.tie_rule!r} ({TIE_RULE_WORDS[ref.tie_rule]})", replace(ref, tie_rule=rule))
            for rule in TIE_RULES if rule != ref.tie_rule
        ]
    if key == "overlap":
        return [("a run such as b'aaa' counted one pair b'a' + b'a' instead of two",
                 replace(ref, count="no_overlap"))]
    if key == "no_split" and ref.pattern:
        return [(f"you counted and merged across the chunks of {pattern_name(ref.pattern)}",
                 replace(ref, pattern=""))]
    if key == "other_pattern":
        theirs = pattern_name(ref.pattern)
        return [(f"you split with {pattern_name(p)}; the reference uses {theirs}",
                 replace(ref, pattern=p)) for p in PATTERN_NAMES if p != ref.pattern]
    if key == "specials_not_cut" and specials:
        return [(f"you trained on the text of {', '.join(specials)} as ordinary text",
                 replace(ref, cut_at_specials=False))]
    if key == "specials_not_counted" and specials:
        setup = replace(ref, specials_in_vocab=False)
        return [(f"you made vocab_size - 256 = {setup.num_merges:,} merges; the reference makes"
                 f" {ref.num_merges:,}, since special tokens count in vocab_size", setup)]
    if key == "vocab_off_by_one":
        out = [(f"you made one merge too many ({ref.num_merges + 1:,})",
                replace(ref, vocab_size=ref.vocab_size + 1))]
        if ref.num_merges > 0:
            out.append((f"you made one merge too few ({ref.num_merges - 1:,})",
                        replace(ref, vocab_size=ref.vocab_size - 1)))
        return out
    if key == "ignore_counts":
        return [("every distinct chunk counted once, however often it occurs",
                 replace(ref, use_counts=False))]
    if key == "right_to_left":
        return [("merges applied from the right", replace(ref, merge="right_to_left"))]
    if key == "first_only":
        return [("each merge applied to the first occurrence in each chunk only",
                 replace(ref, merge="first_only"))]
    return []


class Diagnosis(NamedTuple):
    """A mistake that explains the learner's merges (some or all of them)."""

    mistake: Mistake
    detail: str  # the mistake as it applies here, in words
    explains: int  # how many of the learner's merges, from the first, its replay gives
    explains_all: bool  # its replay gives exactly the learner's merges, no more, no fewer
    setup: Setup  # the replayed trainer's settings
    summary: str


def _common_prefix(a: list[Pair], b: list[Pair]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _diagnose(mine: list[Pair], text: str, reference: Setup,
              comparison: MergeComparison) -> list[Diagnosis]:
    """Replay every training mistake and keep those that explain more than the reference does.

    Each is replayed only up to ``WINDOW`` steps past the first difference (plus one, to see
    whether it goes on longer than the learner's list); the ones that agree all that way are
    replayed again to the end of the learner's merges (the plain loop stops at
    ``MAX_PLAIN_STEPS``: a mistake it replays explains no more than that many).
    """
    if comparison.matches:
        return []
    common = comparison.common
    limit = min(len(mine), common + 1 + WINDOW) + 1
    found = []  # (order in the zoo, mistake, detail, setup, replayed merges)
    for order, mistake in enumerate(MISTAKES):
        for detail, setup in _variants(mistake.key, reference):
            merges = replay(text, setup, limit)
            explains = _common_prefix(merges, mine)
            if explains == len(merges) == limit <= len(mine):  # agrees all the way: go on
                merges = replay(text, setup, len(mine) + 1)
                explains = _common_prefix(merges, mine)
            explains_all = merges == mine
            if explains > common or explains_all:
                found.append((not explains_all, -explains, order, mistake, detail, setup,
                              explains, explains_all))
    found.sort(key=lambda entry: entry[:3])
    out = []
    for *_, mistake, detail, setup, explains, explains_all in found:
        if explains_all:
            how = f"it gives exactly your {_plural(len(mine), 'merge')}."
        else:
            how = (f"it gives your first {explains:,} merges (the reference gives"
                   f" {common:,}).")
            if explains == MAX_PLAIN_STEPS and (setup.count, setup.merge) != (
                    "overlapping", "left_to_right"):
                how = how[:-1] + f"; it was replayed no further than {MAX_PLAIN_STEPS:,}."
        summary = f"{mistake.title}: {detail}; {how}"
        out.append(Diagnosis(mistake, detail, explains, explains_all, setup, summary))
    return out


def diagnose(
    mine: object,
    text: str,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
) -> list[Diagnosis]:
    """The known mistakes that explain the learner's merges, most likely first: those that give
    all of them, then those that give the longest beginning. Empty when the merges match the
    reference's, or when no known mistake explains more than the reference does.

    >>> [d.mistake.key for d in diagnose([(b"a", b"b")], "abaaa", pattern="", vocab_size=257)]
    ['overlap']
    """
    return check_merges(mine, text, pattern=pattern, vocab_size=vocab_size,
                        special_tokens=special_tokens, tie_rule=tie_rule).diagnoses


class ZooDemo(NamedTuple):
    """A mistake's merges on a small text, with the settings to check them with."""

    merges: list[Pair]
    text: str
    settings: dict[str, Any]  # check_merges(merges, text, **settings) shows the symptom
    detail: str


def zoo_demo(
    key: str,
    text: str | None = None,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    vocab_size: int = 256 + 12,
    special_tokens: Iterable[str] | None = None,
    tie_rule: str = "seen",
    variant: int = 0,
) -> ZooDemo:
    """Run a training mistake's trainer on a small text (default: the mistake's ``demo_text``).

    ``special_tokens`` defaults to ``["<|endoftext|>"]`` for the special-token mistakes;
    ``variant`` picks among a mistake's forms (another tie rule: which one).

    >>> demo = zoo_demo("first_only")   # "abababab ...": the same pair again and again
    >>> demo.merges[:3]
    [(b'a', b'b'), (b'a', b'b'), (b'a', b'b')]
    """
    mistake = MISTAKES_BY_KEY.get(key)
    if mistake is None:
        raise ValueError(f"unknown mistake {key!r}; the zoo has {', '.join(MISTAKES_BY_KEY)}")
    if mistake.stage != "training":
        raise ValueError(f"{key!r} is an encoding mistake: use encode_with_mistake(key, tok, text)")
    text = mistake.demo_text if text is None else text
    if special_tokens is None:
        special_tokens = ["<|endoftext|>"] if key.startswith("specials") else []
    pattern, specials = _check_settings(text, pattern, special_tokens)
    reference = Setup(pattern, vocab_size, specials, tie_rule)
    variants = _variants(key, reference)
    if not variants:
        raise ValueError(f"the mistake {key!r} cannot happen with these settings (it needs"
                         " special tokens, or a split pattern to ignore)")
    if not 0 <= variant < len(variants):
        raise ValueError(f"variant must be 0..{len(variants) - 1} for {key!r}, not {variant!r}")
    detail, setup = variants[variant]
    settings = dict(pattern=pattern, vocab_size=vocab_size, special_tokens=list(specials),
                    tie_rule=tie_rule)
    return ZooDemo(replay(text, setup), text, settings, detail)


# ---------------------------------------------------------------------------------------------
# 6. Encoding mistakes


def _encode_by_frequency(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """A MISTAKE: merge the chunk's most frequent pair among the learned ones, not the earliest."""
    while len(ids) >= 2:
        stats = {p: n for p, n in get_stats(ids).items() if p in merges}
        if not stats:
            break
        pair = max(stats, key=stats.get)
        ids = merge(ids, pair, merges[pair])
    return ids


def _encode_most_frequent_or_stop(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """A MISTAKE: take the chunk's most frequent pair of all; stop when it is not a merge."""
    while len(ids) >= 2:
        stats = get_stats(ids)
        pair = max(stats, key=stats.get)
        if pair not in merges:
            break
        ids = merge(ids, pair, merges[pair])
    return ids


def _encode_by_rank(ids: list[int], merges: dict[tuple[int, int], int],
                    merge_pair: Callable = merge) -> list[int]:
    """By rank (the lowest new id first), merging with ``merge_pair``."""
    while len(ids) >= 2:
        ranked = [(merges[p], p) for p in zip(ids, ids[1:]) if p in merges]
        if not ranked:
            break
        rank, pair = min(ranked)
        ids = merge_pair(ids, pair, rank)
    return ids


def _encode_each_merge_once(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """A MISTAKE: every merge in rank order, once each, replacing the first occurrence only."""
    last = -1
    while len(ids) >= 2:
        ranked = [(merges[p], p) for p in zip(ids, ids[1:]) if merges.get(p, -1) > last]
        if not ranked:
            break
        rank, pair = min(ranked)
        ids = merge_first_only(ids, pair, rank)
        last = rank
    return ids


_CHUNK_ENCODERS: dict[str, list[Callable[[list[int], dict], list[int]]]] = {
    "encode_by_frequency": [_encode_by_frequency, _encode_most_frequent_or_stop],
    "encode_right_to_left": [lambda ids, m: _encode_by_rank(ids, m, merge_right_to_left)],
    "encode_first_only": [_encode_each_merge_once],
}


def encode_with_mistake(key: str, tok: Tokenizer, text: str, variant: int = 0) -> list[int]:
    """``tok.encode(text, allowed_special="all")`` as a learner's encoder with mistake ``key``
    would do it (``variant``: "encode_by_frequency" has two forms: 0 merges the most frequent
    learned pair; 1 stops as soon as the most frequent pair is not a merge).

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaa aaa", 257)
    >>> tok.encode("aaa"), encode_with_mistake("encode_right_to_left", tok, "aaa")
    ([256, 97], [97, 256])
    """
    if key not in MISTAKES_BY_KEY or MISTAKES_BY_KEY[key].stage != "encoding":
        keys = [m.key for m in MISTAKES if m.stage == "encoding"]
        raise ValueError(f"unknown encoding mistake {key!r}; expected one of {', '.join(keys)}")
    byte_ids = tok.byte_token_ids
    out: list[int] = []
    if key == "encode_no_split":  # each piece between special tokens, unsplit, by rank
        for piece, special in tok.segments(text, "all"):
            if special is None:
                out += apply_merges([byte_ids[b] for b in piece.encode("utf-8")], tok.merges)
            else:
                out.append(special)
        return out
    encoders = _CHUNK_ENCODERS[key]
    if not 0 <= variant < len(encoders):
        raise ValueError(f"variant must be 0..{len(encoders) - 1} for {key!r}, not {variant!r}")
    encode_chunk = encoders[variant]
    for chunk, special in tok.chunks(text, "all"):
        if special is None:
            out += encode_chunk([byte_ids[b] for b in chunk.encode("utf-8")], tok.merges)
        else:
            out.append(special)
    return out


class EncodingCheck(NamedTuple):
    """A learner's ids for a sentence beside the tokenizer's own."""

    matches: bool
    expected: list[int]  # tok.encode(sentence, allowed_special="all")
    first_difference: int | None  # the 1-based position of the first differing id
    mistakes: list[Mistake]  # the encoding mistakes that give exactly the learner's ids
    summary: str


def read_ids(data: object) -> list[int]:
    """Token ids from a list, or from text such as ``"[256, 97]"`` or ``"256 97"`` (read as
    literals, never run).

    >>> read_ids("[256, 97, 98]"), read_ids("256 97 98")
    ([256, 97, 98], [256, 97, 98])
    """
    label = "your ids"
    if isinstance(data, str):
        text = _as_text(data, label).strip()
        if regex.fullmatch(r"\[?[\d\s,]*\]?", text):
            numbers = regex.findall(r"\d+", text)
            too_long = next((x for x in numbers if len(x) > 10), None)
            if too_long is not None:
                raise ValueError(f"{label}: {shorten(too_long, 20)} is not a token id")
            data = [int(x) for x in numbers]
        else:
            values = _python_values(text, label)
            if len(values) != 1:
                raise ValueError(f"{label}: expected one list of ids such as [256, 97]")
            data = values[0].value
    if isinstance(data, str | bytes) or not isinstance(data, Iterable):
        raise ValueError(f"expected a list of token ids such as [256, 97], not {shorten(data)}")
    ids = list(data)
    if len(ids) > 4 * MAX_CHECK_CHARS:
        raise ValueError(f"{label}: {len(ids):,} ids is more than this tool reads")
    for k, x in enumerate(ids, 1):
        if not _is_id(x) or x < 0:
            raise ValueError(f"item {k} of {label} is {shorten(x)}: expected a token id (a whole"
                             " number >= 0)")
    return ids


def diagnose_encoding(tok: Tokenizer, sentence: str, their_ids: object) -> EncodingCheck:
    """Compare a learner's ids for ``sentence`` with ``tok.encode`` and with the encoding
    mistakes of the zoo (``tok`` holds the merges both encoders use).

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaa aaa", 257)
    >>> check = diagnose_encoding(tok, "aaa", [97, 256])
    >>> check.matches, [m.key for m in check.mistakes]
    (False, ['encode_right_to_left'])
    """
    ids = read_ids(their_ids)
    if not isinstance(sentence, str) or len(sentence) > MAX_CHECK_CHARS:
        raise ValueError(f"the sentence must be a str of at most {MAX_CHECK_CHARS:,} characters")
    expected = tok.encode(sentence, allowed_special="all")
    if ids == expected:
        said = f"Your {len(ids):,} ids match the tokenizer's."
        return EncodingCheck(True, expected, None, [], said)
    position = _common_prefix(ids, expected) + 1
    mistakes = []
    for mistake in MISTAKES:
        if mistake.stage == "encoding":
            forms = len(_CHUNK_ENCODERS.get(mistake.key, [None]))
            if any(encode_with_mistake(mistake.key, tok, sentence, v) == ids for v in range(forms)):
                mistakes.append(mistake)
    if position > min(len(ids), len(expected)):
        longer = "yours are" if len(ids) > len(expected) else "the tokenizer's are"
        said = (f"Your ids match the tokenizer's first {min(len(ids), len(expected)):,};"
                f" {longer} longer ({len(ids):,} against {len(expected):,}).")
    else:
        said = (f"Your ids differ at position {position:,}: you have {ids[position - 1]}, the"
                f" tokenizer {expected[position - 1]}.")
    spelled = all(i in tok.vocab for i in ids) and tok.decode_bytes(ids) == clean_text(
        sentence).encode("utf-8")
    if not spelled:
        said += (" Your ids do not spell the sentence with this tokenizer's tokens (another"
                 " numbering, or another sentence?).")
    if mistakes:
        said += " They are exactly what this mistake gives: " + mistakes[0].title + "."
    return EncodingCheck(False, expected, position, mistakes, said)
