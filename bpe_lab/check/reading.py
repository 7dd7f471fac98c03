"""Reading a learner's output safely, whatever it was saved as (``read_merges``): a minbpe
``.model``, CS336's ``vocab`` / ``merges`` printed as Python literals, a merges.txt in GPT-2's
byte alphabet (with its vocab.json), a dict or list of id pairs, or any tokenizer file
``files.py`` reads; and an encoder's ids (``read_ids``). Merges become pairs of token BYTES,
since learners number their tokens differently but bytes compare.

Pasted text is data, never code: Python literals are read with ``ast`` after bounds on size,
nesting and item counts (see ``task``), never with ``eval``; pickles are refused. Every refusal is
a ValueError that says what was expected and what was found.
"""

from __future__ import annotations

import ast
import json
import keyword
from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any, NamedTuple

import regex

from bpe_core.files import read_tokenizer
from bpe_core.formats import MODEL_HEADERS, gpt2_bytes, parse_minbpe
from bpe_core.sentencepiece import looks_like_model
from bpe_core.text import shorten

from .task import (
    MAX_CHECK_CHARS,
    MAX_INPUT_CHARS,
    MAX_MERGES,
    MAX_NESTING,
    MAX_PYTHON_CHARS,
    Pair,
    pattern_name,
)


class LearnerOutput(NamedTuple):
    """What ``read_merges`` found: the merges as bytes pairs, in the order they were learned."""

    merges: list[Pair]
    vocab: dict[int, bytes] | None  # the learner's own numbering, when the input had one
    special_tokens: list[str]  # tokens of the vocab that no merge made and that are no byte
    format: str  # in words: "minbpe .model", "Python literals (vocab, merges)", ...
    notes: list[str]  # things worth knowing that are not errors
    pattern: str | None = None  # the split pattern the file names (a .model, a tokenizer file)


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
    if isinstance(data, bytes | bytearray) and looks_like_model(bytes(data)):
        raise ValueError(_OTHER_FAMILY.format(label=label, family="sentencepiece"))
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


def check_merge_count(n: int, label: str) -> None:
    """Refuse more than ``MAX_MERGES`` merges, naming where they came from."""
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
        check_merge_count(len(document), label)
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


_OTHER_FAMILY = ("{label} is {family} BPE (Llama 2's family): the check compares byte-level BPE"
                 " merges only")


def _read_tokenizer_file(data: str | bytes, label: str, kind: str) -> LearnerOutput:
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    tok = read_tokenizer(raw, label, pattern="", special_tokens={})  # merges only
    if tok.family != "byte-level":
        raise ValueError(_OTHER_FAMILY.format(label=label, family=tok.family))
    check_merge_count(len(tok.merges), label)
    ordered = sorted(tok.merges.items(), key=lambda item: item[1])
    merges = [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in ordered]
    # a tiktoken file holds ranks only: the pattern a loader gives it is not the file's
    pattern = None if kind == "tiktoken ranks" else tok.pattern
    notes = [f"its split pattern is {pattern_name(pattern)}"] if pattern else []
    return LearnerOutput(merges, dict(tok.vocab), list(tok.special_tokens), kind, notes, pattern)


# -- minbpe .model ----------------------------------------------------------------------------


def _read_minbpe(text: str, label: str) -> LearnerOutput:
    if text.count("\n") > MAX_MERGES + 10_000:
        raise ValueError(f"{label} has {text.count(chr(10)):,} lines; this tool reads at most"
                         f" {MAX_MERGES:,} merges")
    pattern, special_tokens, id_merges = parse_minbpe(text, label)
    check_merge_count(len(id_merges), label)
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for k, (a, b) in enumerate(id_merges):
        merges.append((vocab[a], vocab[b]))
        vocab[256 + k] = vocab[a] + vocab[b]
    for special, idx in special_tokens.items():
        vocab[idx] = special.encode("utf-8")
    notes = [f"its split pattern is {pattern_name(pattern)}"]
    return LearnerOutput(merges, vocab, list(special_tokens), "minbpe .model", notes, pattern)


# -- merges.txt in GPT-2's byte alphabet -------------------------------------------------------

def _merges_txt_lines(text: str) -> list[tuple[int, str]]:
    """The merge lines of a merges.txt with their numbers (no blank lines, no #version)."""
    lines = []
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r").lstrip("\ufeff")
        if line.strip() and not (not lines and line.startswith("#version")):
            lines.append((lineno, line))
    return lines


def _is_merge_line(line: str) -> bool:
    return len(fields := line.split(" ")) == 2 and all(fields)


def _looks_like_merges_txt(text: str) -> bool:
    """Every line (of the first 1,000) is a merge: two tokens separated by one space."""
    lines = _merges_txt_lines(text)
    return bool(lines) and all(_is_merge_line(line) for _, line in lines[:1000])


def _mostly_merges_txt(text: str) -> bool:
    """A merges.txt with a few bad lines: among the first 1,000, at least two merge lines, more
    merge lines than others, and at most one in ten (or two) that are not. Read as a merges.txt,
    its first bad line gets a message with its number and the expected form."""
    lines = [line for _, line in _merges_txt_lines(text)[:1000]]
    good = sum(map(_is_merge_line, lines))
    bad = len(lines) - good
    return good >= 2 and good > bad and bad <= max(2, len(lines) // 10)


def _merge_line_problem(line: str) -> str:
    """What is wrong with a line of a merges.txt, in words."""
    fields = line.split(" ")
    if "" in fields and len(fields) > 1:
        return f"found {shorten(line)}, which has a space at its start or end, or two in a row"
    if len(fields) == 1:
        return f"found {shorten(line)}, one token"
    return f"found {shorten(line)}, {len(fields)} tokens"


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
                f" space, such as 'Ġ t' (a space is written Ġ); {_merge_line_problem(line)}"
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
    """Python first, unless the lines are two tokens (a merges.txt, perhaps with a bad line or
    two) and nothing says Python."""
    first_word = regex.match(r"\w*", head).group()
    return (
        head[:1] in ("[", "{", "(")
        or _ASSIGNMENT_OR_CALL.match(head) is not None
        or keyword.iskeyword(first_word)
        or not _mostly_merges_txt(head)
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
        check_merge_count(len(value), label)
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
    check_merge_count(len(value), label)
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
