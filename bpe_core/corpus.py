"""Reading a corpus from disk in blocks and counting its split pieces on every core.

Training needs only how often each distinct piece occurs (" the": 20 000 times), in the order
the pieces first appear. This module gets that table from files of any size without holding them:

1. It cuts the corpus into blocks of about ``block_bytes`` only at places where cutting
   provably changes nothing: right after a special token (when no two special tokens can
   overlap), or, for the built-in GPT-2, GPT-4 and GPT-4o patterns, beside a line break by
   the rule proven for that pattern (``split.proven_cuts``). Any other pattern, and a
   tokenizer read from a tokenizer.json (``PipelineSplit``: normalizer, added tokens,
   pre-tokenizer), is cut only after special tokens: a pattern can look arbitrarily far
   (``(?s).{1,4}`` counts from the start of the text). A corpus that holds no place to cut
   for ``MAX_BLOCK_BYTES`` (64 MB, or ``block_bytes`` if larger) is refused, naming the fix.
2. Worker processes (or a Dask cluster) count the pieces of each block, in first-seen order.
3. The blocks' tables are added up in block order, so the combined table keeps the
   first-seen order of the whole text, and ``train_bpe`` makes exactly the merges that
   ``train`` makes on the whole text. With worker processes this is done in one more process,
   the reducer (``_Reducer``), which sends the table back as a ``PieceTable`` and exits: this
   process never holds a dict of every piece, whose million small objects, once freed, leave
   memory that the merge loop's arrays cannot reuse.

The corpus is the files' texts joined with nothing between them: ``"".join(texts)``, where each
file is read as bytes and decoded as UTF-8 on its own (line endings kept as they are, "\\r\\n"
included, as ``open(path, newline="")`` reads them). A file without a final newline runs on into
the next file, exactly as in the joined string; put a special token or a newline at the end of
each document to keep them apart. An iterator of str is the same: its strings joined.

    >>> counted = count_pieces(iter(["the cat\\n", "the hat\\n"]), pattern=r" ?\\w+|\\s", workers=1)
    >>> counted.counts
    {b'the': 2, b' cat': 1, b'\\n': 2, b' hat': 1}

Data, with shapes:

    block      a str (from an iterator) or ((path, start byte, end byte), ...) (from files)
    counts     piece bytes -> occurrences, in the order pieces first appear (one block's or all)
"""

from __future__ import annotations

import os
import time
from array import array
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from .limits.budget import budget_for
from .split import (
    compile_pattern,
    cut_at_specials,
    proven_cuts,
    specials_pattern,
    split_by_pattern,
    time_left,
    training_specials,
)
from .text import clean_text, shorten
from .training import PieceTable, piece_table, piece_table_of_text
from .words import CHUNK_ROAD, road_chunks

DEFAULT_BLOCK_BYTES = 2 << 20  # about 2 MB of text per block
SETTLE_SECONDS = 3.0  # after an error or Ctrl-C, how long the blocks being counted may finish
CONTEXT = 300  # characters read on each side of a possible cut (special tokens, a rule's lookbehind)
CUT_WINDOW = 64 << 10  # bytes read at a time when looking for a cut
MAX_BLOCK_BYTES = 64 << 20  # a block longer than this (or than block_bytes) with no cut: refused
DASK_NO_WORKER_SECONDS = 10.0  # a Dask cluster without a worker this long: refused
DASK_POLL_SECONDS = 0.02  # how often a Dask block's result is looked for

# on_bytes(bytes done, bytes in all or None when unknown): the reading's progress
BytesCallback = Callable[[int, int | None], object]
# a path, a list of paths, or an iterator of str
CorpusSources = str | os.PathLike | Iterable


class CorpusError(ValueError):
    """A corpus that cannot be read as asked; the message names the file and the fix."""


class PieceCounts(NamedTuple):
    """What ``count_pieces`` found: the table, and how the reading went."""

    # piece -> occurrences, in first-seen order (a PieceTable when worker processes counted)
    counts: dict[bytes, int] | PieceTable
    bytes_read: int  # bytes of the corpus (UTF-8 bytes of the strings of an iterator)
    blocks: int  # how many blocks it was cut into
    max_in_flight: int  # the most blocks read or being counted at one time
    workers: int  # processes that counted (1: this one; with Dask: the cluster's threads, or 0)
    distinct: int  # distinct pieces (the table's length, kept when the table is freed)


# ----------------------------------------------------------------------------------------------
# The pieces of a tokenizer with a tokenizer.json pipeline


class PipelineSplit:
    """How a tokenizer read from a tokenizer.json (``tok.pipeline``: normalizer, pre-tokenizer,
    added tokens) cuts text: its ``chunks(text, "none")``, as ``train`` counts them. Given as
    the ``pattern`` of ``count_pieces`` / ``file_blocks``. The pipeline's steps are closures,
    which pickle cannot carry, so this pickles as the tokenizer's tokenizer.json (written
    once, when first pickled) and ``rebuild``, a module-level function that makes a tokenizer
    that splits the same from it (``base.split_from_json``; given by the caller, so this module
    imports no tokenizer module): spawn and Dask workers rebuild it once per process."""

    def __init__(self, tok: object, rebuild: Callable[[str], object]) -> None:
        self.tok = tok
        self.rebuild = rebuild
        self.json: str | None = None

    def __reduce__(self) -> tuple:
        if self.json is None:
            from .formats import to_hf_json

            self.json = to_hf_json(self.tok)
        return _pipeline_split_of, (self.rebuild, self.json)

    def chunks(self, text: str, deadline: float | None) -> list[tuple[str, int | None]]:
        """``[(chunk, added token id or None)]`` of ``text``; past ``deadline``, TimeoutError."""
        tok = self.tok
        try:
            return tok.pipeline.pieces(clean_text(text), {}, tok.split, deadline)
        except ValueError as e:  # tok.split says a timeout as a ValueError
            if isinstance(e.__cause__, TimeoutError):
                raise TimeoutError from None
            raise


_PIPELINE_SPLITS: dict[str, PipelineSplit] = {}  # tokenizer.json -> its splitter, per process


def _pipeline_split_of(rebuild: Callable[[str], object], json_text: str) -> PipelineSplit:
    found = _PIPELINE_SPLITS.get(json_text)
    if found is None:
        found = PipelineSplit(rebuild(json_text), rebuild)
        found.json = json_text
        _PIPELINE_SPLITS.clear()  # one tokenizer at a time is enough
        _PIPELINE_SPLITS[json_text] = found
    return found


# ----------------------------------------------------------------------------------------------
# Where a cut changes nothing


class _Cutter:
    """Finds places where the corpus may be cut into blocks, for one split and special tokens:
    right after a special token (when no two special tokens can overlap), or where the split
    pattern's proven rule allows it (``split.proven_cuts``: the built-in patterns, beside line
    breaks). Any other pattern, and a tokenizer.json pipeline, is cut only after special tokens."""

    def __init__(
        self, pattern: str | PipelineSplit, specials: list[str], timeout: float | None
    ) -> None:
        self.pipeline = pattern if isinstance(pattern, PipelineSplit) else None
        self.compiled = None if self.pipeline is not None else compile_pattern(pattern)
        self.specials = specials
        # after a special token: sound only when the special tokens' matches cannot overlap
        # (else a scan that starts elsewhere can pair them up differently: "ab"/"ba" in "abab")
        self.special_re = specials_pattern(specials) if not specials_overlap(specials) else None
        self.longest = max(map(len, specials), default=0)
        self.timeout = timeout
        # Beside a line break only by a proven rule, and when no special token holds a line
        # break (a special token is matched before the split, and could span the cut).
        self.rule = None if self.pipeline is not None else proven_cuts(pattern)
        if any("\r" in s or "\n" in s for s in specials):
            self.rule = None

    @property
    def can_cut(self) -> bool:
        """False when no place can be cut (no proven rule, no special token): one block."""
        return self.special_re is not None or self.rule is not None

    def find(self, text: str, lo: int, hi: int, *, starts: bool, ends: bool) -> int | None:
        """The first place in ``lo..hi-1`` (``0 < place``) where ``text`` may be cut, or None.

        ``starts``/``ends``: ``text`` begins/ends where the corpus does (else the places near
        its edges are not trusted: a special token could run over the edge).
        """
        if self.special_re is not None:  # right after a special token
            edge = 0 if starts else self.longest
            for m in self.special_re.finditer(text, max(0, lo - self.longest)):
                if m.end() >= hi or (not ends and m.end() + self.longest > len(text)):
                    break
                if m.end() >= lo and m.end() > 0 and m.start() >= edge:
                    return m.end()
        if self.rule is not None:  # beside a line break, by the pattern's proven rule
            m = self.rule.search(text, max(lo, 1))  # its lookarounds read one character around
            if m is not None and m.start() < hi:
                return m.start()
        return None


def specials_overlap(specials: list[str]) -> bool:
    """Whether two special tokens (or one with itself) can overlap or hold one another, so that
    where their matches fall depends on where the scan started.

    >>> specials_overlap(["<|endoftext|>", "<|im_start|>"]), specials_overlap(["ab", "ba"])
    (False, True)
    """
    known = set(specials)
    prefixes = {s[:k] for s in specials for k in range(1, len(s) + 1)}
    lengths = sorted({len(s) for s in specials})
    for a in specials:
        if any(a[k:] in prefixes for k in range(1, len(a))):
            return True  # a suffix of a begins a special token (maybe a itself)
        for n in lengths:  # another special token inside a
            if n < len(a) and any(a[i:i + n] in known for i in range(len(a) - n + 1)):
                return True
    return False


# ----------------------------------------------------------------------------------------------
# Blocks of files and of iterators


class _Files:
    """Files read as one run of bytes: global byte offsets map to (file, offset in file)."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.sizes = [_check_file(p) for p in paths]
        self.starts = [0]
        for size in self.sizes:
            self.starts.append(self.starts[-1] + size)
        self.total = self.starts[-1]

    def segments(self, start: int, end: int) -> tuple[tuple[str, int, int], ...]:
        """Bytes ``start..end`` of the run as ``(path, start, end)`` pieces of files."""
        out = []
        k = bisect_right(self.starts, start) - 1
        while start < end and k < len(self.paths):
            file_start = self.starts[k]
            stop = min(end, self.starts[k + 1])
            if stop > start:
                out.append((self.paths[k], start - file_start, stop - file_start))
            start = max(start, stop)
            k += 1
        return tuple(out)

    def read(self, start: int, end: int) -> bytes:
        data = []
        for path, s, e in self.segments(start, end):
            with open(path, "rb") as f:
                f.seek(s)
                data.append(f.read(e - s))
        return b"".join(data)


def _check_file(path: str) -> int:
    """The size of a corpus file, or CorpusError saying what is wrong with it."""
    if len(path) > 1000 or "\n" in path:
        raise CorpusError(f"corpus file {shorten(path)} does not look like a path; to count"
                          " strings rather than files, pass an iterator: iter(texts)")
    try:
        if os.path.isdir(path):
            raise CorpusError(f"{path} is a directory; give the files in it (e.g. {path}/*.txt)")
        with open(path, "rb") as f:
            f.read(1)
        return os.path.getsize(path)
    except FileNotFoundError:
        raise CorpusError(f"corpus file {shorten(path)} does not exist; check the path") from None
    except PermissionError:
        raise CorpusError(f"corpus file {path} cannot be read (permission denied); check its"
                          " permissions") from None
    except OSError as e:
        raise CorpusError(f"corpus file {path} cannot be read: {e.strerror or e}") from None


def _file_blocks(files: _Files, block_bytes: int, cutter: _Cutter) -> Iterator[tuple]:
    """The corpus's blocks as ``((path, start, end), ...)``, cut where cutting changes nothing."""
    start = 0
    limit = max(MAX_BLOCK_BYTES, block_bytes)
    while start < files.total:
        end = _next_cut(files, start + block_bytes, cutter, start + limit)
        if end - start > limit:
            raise CorpusError(_uncut_message(cutter, ", ".join(files.paths), start, limit))
        yield files.segments(start, end)
        start = end


def _uncut_message(cutter: _Cutter, what: str, start: int, limit: int, unit: str = "byte") -> str:
    """Why the corpus cannot be cut into blocks of at most ``limit`` bytes, and what to do."""
    if cutter.pipeline is not None:
        why = "a tokenizer.json pipeline is cut only right after a special token"
    elif cutter.compiled is None:
        why = "without a split pattern the text between special tokens is one piece"
    elif cutter.rule is None and cutter.compiled.pattern:
        why = (f"the split pattern {shorten(cutter.compiled.pattern)} is not one whose cuts"
               " bpe_core can prove harmless (only GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN and"
               " GPT4O_SPLIT_PATTERN are cut beside line breaks), so the text is cut only right"
               " after a special token")
    else:
        why = "no line break or special token leaves a place where a cut changes nothing"
    if cutter.specials and cutter.special_re is None:
        why += " (and the special tokens can overlap one another, so not there either)"
    return (f"{what}: from {unit} {start:,} on, more than {limit:,} {unit}s hold no place to cut"
            f" the corpus into blocks: {why}. Put a special token such as <|endoftext|> between"
            " documents and pass it (special_tokens=, --special-token), or use a built-in pattern")


def _next_cut(files: _Files, target: int, cutter: _Cutter, limit: int) -> int:
    """The first safe cut at or after byte ``target``: the end of the corpus if none, or a
    place past ``limit`` when none is found up to it."""
    if not cutter.can_cut:
        return files.total
    pos = target
    while pos < files.total:
        if pos > limit:
            return files.total
        lo = max(0, pos - 4 * CONTEXT)
        hi = min(files.total, pos + CUT_WINDOW + 4 * CONTEXT)
        data = files.read(lo, hi)
        while lo > 0 and data and 0x80 <= data[0] < 0xC0 and lo < pos:
            lo, data = lo + 1, data[1:]  # the window starts between characters, not inside one
        while pos < hi and pos - lo < len(data) and 0x80 <= data[pos - lo] < 0xC0:
            pos += 1  # a cut falls between characters: step past continuation bytes
        # surrogateescape: bytes that are not UTF-8 stay one character each (the workers say
        # where they are); encoding back gives the offsets exactly.
        text = data.decode("utf-8", "surrogateescape")
        first = len(data[: pos - lo].decode("utf-8", "surrogateescape"))
        ends = hi == files.total
        last = len(text) if ends else len(text) - CONTEXT
        c = cutter.find(text, first, last, starts=lo == 0, ends=ends)
        if c is not None:
            return lo + len(text[:c].encode("utf-8", "surrogateescape"))
        if ends:
            break
        pos = lo + len(text[:last].encode("utf-8", "surrogateescape"))
    return files.total


def _text_blocks(texts: Iterator, block_chars: int, cutter: _Cutter) -> Iterator[str]:
    """An iterator's strings joined and cut into blocks of about ``block_chars`` characters."""
    held: list[str] = []
    size = 0
    searched = 0  # characters of the held text already searched for a cut in vain
    done = 0  # characters given out in blocks
    limit = max(MAX_BLOCK_BYTES, block_chars)
    for k, text in enumerate(texts):
        if not isinstance(text, str):
            hint = " (decode bytes first)" if isinstance(text, bytes | bytearray) else ""
            raise CorpusError(f"the corpus iterator gave a {type(text).__name__} at item {k};"
                              f" it must give str{hint}, or pass file paths in a list")
        held.append(text)
        size += len(text)
        if size > limit + 2 * CONTEXT and not cutter.can_cut:
            raise CorpusError(_uncut_message(cutter, "the corpus iterator", done, limit,
                                                 "character"))
        # look for a cut once a block is held, and again only when a block more is held
        while cutter.can_cut and size >= searched + block_chars + 2 * CONTEXT:
            whole = "".join(held)
            c = cutter.find(whole, max(block_chars, searched - CONTEXT), len(whole) - CONTEXT,
                            starts=True, ends=False)
            if c is None:
                held, searched = [whole], len(whole) - CONTEXT
                if searched > limit:
                    raise CorpusError(_uncut_message(cutter, "the corpus iterator", done, limit,
                                                 "character"))
                break
            yield clean_text(whole[:c])
            held, size, searched, done = [whole[c:]], len(whole) - c, 0, done + c
    whole = "".join(held)
    if whole:
        yield clean_text(whole)


# ----------------------------------------------------------------------------------------------
# Counting one block (in a worker process, a Dask worker, or here)


def read_block(block: tuple, errors: str = "strict") -> tuple[str, int]:
    """A block of files (``((path, start, end), ...)``, as ``file_blocks`` gives them): its text
    and its size in bytes. Bytes that are not UTF-8 are a CorpusError naming the file and the
    offset (or U+FFFD with ``errors="replace"``)."""
    texts, size = [], 0
    for path, start, end in block:
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(end - start)
        size += len(data)
        try:
            texts.append(data.decode("utf-8", errors))
        except UnicodeDecodeError as e:
            raise CorpusError(
                f"{path}: the bytes at offset {start + e.start:,} are not UTF-8"
                f" ({shorten(e.object[e.start:e.end])}: {e.reason}); re-encode the file as"
                ' UTF-8, or read them as U+FFFD with errors="replace" (--errors replace)'
            ) from None
    return "".join(texts), size


def _count_block(*args: object) -> tuple[dict[bytes, int], int]:
    """One block's pieces -> occurrences in first-seen order, and the block's size in bytes
    (``_count_text``'s, the pieces in UTF-8)."""
    counts, size = _count_text(*args)
    return {piece.encode("utf-8"): n for piece, n in counts.items()}, size


def _count_text(
    block: str | tuple, pattern: str | PipelineSplit, specials: list[str], errors: str,
    timeout: float | None,
) -> tuple[Counter[str], int]:
    """One block's pieces (str) -> occurrences in first-seen order, and its size in bytes.

    A plain function of plain data (a ``PipelineSplit`` pickles as its tokenizer.json), so
    that processes and Dask workers can run it. A pipeline's added tokens are not counted.
    """
    if isinstance(block, str):
        text, size, where = block, len(block.encode("utf-8")), "a block of the corpus iterator"
    else:
        text, size = read_block(block, errors)
        first, last = block[0], block[-1]
        where = f"bytes {first[1]:,}..{last[2]:,} of {last[0]}" if first[0] == last[0] else \
            f"bytes {first[1]:,} of {first[0]} to {last[2]:,} of {last[0]}"
    deadline = None if timeout is None else time.monotonic() + timeout
    pipeline = pattern if isinstance(pattern, PipelineSplit) else None
    compiled = None if pipeline is not None else compile_pattern(pattern)
    road = pipeline is None and pattern in CHUNK_ROAD  # ASCII split by re (words.road_chunks)
    remaining, budget = time_left(deadline), budget_for(timeout)  # a timeout wins over a policy

    counts: Counter[str] = Counter()
    try:
        if pipeline is not None:  # normalized and pre-tokenized; its added tokens not counted
            for part in cut_at_specials(text, specials):
                counts.update(c for c, idx in pipeline.chunks(part, deadline) if idx is None)
        else:
            for part in cut_at_specials(text, specials):
                if compiled is None:
                    counts[part] += 1
                elif road:  # GPT-2's or GPT-4's split: bounded, the time checked between parts
                    remaining()
                    counts.update(road_chunks(pattern, compiled, part, 1.0))
                else:  # a worker process within the budget (the timeout wins over a policy)
                    counts.update(split_by_pattern(compiled, part, remaining, budget=budget))
    except TimeoutError:  # the regex engine's, or a worker's (a TimeBudgetExceeded)
        what = "the split pattern" if pipeline is None else "the normalizer and the split"
        raise CorpusError(
            f"{what} took longer than {timeout or budget.seconds:g} s on {where}; simplify the pattern"
            " (nested repeats such as (a+)+ backtrack badly)"
        ) from None
    return counts, size


def _count_block_compact(*args: object) -> tuple[PieceTable, int]:
    """``_count_block`` as a worker sends it: the table in flat arrays (``PieceTable``), which
    pickles as three buffers instead of an object per piece."""
    counts, size = _count_text(*args)
    return piece_table_of_text(counts), size


def _ignore_interrupts() -> None:
    """Worker processes leave Ctrl-C to the main process, which stops them all."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _add_table(counts: dict[bytes, int], block: dict[bytes, int] | PieceTable) -> None:
    """Adds one block's table to ``counts``, keeping the first-seen order (a new piece comes
    after those there, in the block's order). A loop: the time goes to the lookups in a dict of
    a million pieces (96 blocks of web-like 200 MB: 6.3 s; sliced by ``map`` and one
    ``update(zip(...))``: 7.1 s; the block's dict, then ``update``: 12.9 s; CPU, load 1.4-2).

    >>> counts = {b"a": 1, b"b": 2}
    >>> _add_table(counts, piece_table({b"c": 5, b"b": 1}))
    >>> counts
    {b'a': 1, b'b': 3, b'c': 5}
    """
    if not counts and isinstance(block, dict):
        counts.update(block)  # the first block: its table as it is
        return
    get = counts.get
    for piece, n in block.items():
        counts[piece] = get(piece, 0) + n


class _Reducer:
    """A process that adds up the blocks' tables (``_add_table``) while the pool counts them,
    and sends the whole table back as a ``PieceTable`` once told the last block came. This
    process then never holds the dict of every piece (141 MB for the 1.19 million pieces of
    web-like 200 MB): its small objects, once freed, stay fragmented in this process, where
    the merge loop's arrays cannot reuse them; the reducer's memory goes back to the system
    when it exits. Like the workers it leaves Ctrl-C to this process, which stops it
    (``close``, always called)."""

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_reduce, args=(theirs,), daemon=True,
                                       name="bpe_core reducer")
        self.process.start()
        self.finished = False  # True once the table came back: then it exits on its own
        theirs.close()  # its end lives in the reducer only: if it stops, sending here fails

    def add(self, table: PieceTable) -> None:
        try:
            self.conn.send(table)  # three buffers (PieceTable.__reduce__)
        except OSError:
            raise self._stopped() from None

    def result(self) -> PieceTable:
        """The table of every block sent, in first-seen order."""
        try:
            self.conn.send(None)  # no more blocks
            said = self.conn.recv()  # the number of pieces, or why it failed
            if not isinstance(said, int):
                raise CorpusError(f"adding up the counts failed: {said}")
            data = self.conn.recv_bytes()
            ends, counts = array("Q"), array("Q")
            ends.frombytes(self.conn.recv_bytes())
            counts.frombytes(self.conn.recv_bytes())
        except (OSError, EOFError):
            raise self._stopped() from None
        self.finished = True
        return PieceTable(data, ends, counts)

    def _stopped(self) -> Exception:
        """What to raise when the reducer stopped without a word (out of memory, killed)."""
        self.process.join(1)
        try:
            if self.conn.poll():
                return CorpusError(f"adding up the counts failed: {self.conn.recv()}")
        except (OSError, EOFError):
            pass
        return CorpusError(
            f"the process adding up the counts stopped (exit code {self.process.exitcode}),"
            " most likely out of memory; count fewer distinct pieces (a smaller corpus)")

    def close(self) -> None:
        """Stops the reducer if it still runs (an error or Ctrl-C here) and waits for it."""
        if self.finished:
            self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self.conn.close()


def _reduce(conn: object) -> None:
    """The reducer's work (see ``_Reducer``): tables until None, then the sum, back."""
    _ignore_interrupts()
    counts: dict[bytes, int] = {}
    try:
        while (table := conn.recv()) is not None:
            _add_table(counts, table)
        table = piece_table(counts)
        conn.send(len(table))
        for buffer in (table.data, table.ends, table.counts):
            conn.send_bytes(buffer)
    except EOFError:  # the main process closed its end: it stopped counting
        return
    except BaseException as e:  # MemoryError, most likely: said to the main process
        counts.clear()
        try:
            conn.send(f"{type(e).__name__}: {e}")
        except BaseException:
            pass


class _Runner:
    """Counts blocks in order with at most ``limit`` of them read or being counted at once."""

    def __init__(self, workers: int, client: object, limit: int) -> None:
        self.workers, self.client, self.limit = workers, client, limit
        self.max_in_flight = 0

    @property
    def uses_pool(self) -> bool:
        """Whether the blocks are counted in worker processes here (not in this one, not Dask)."""
        return self.client is None and self.workers != 1

    def run(self, blocks: Iterator, args: tuple, consume: Callable[[dict, int], None]) -> None:
        if self.client is not None:
            self._run_dask(blocks, args, consume)
        elif self.workers == 1:
            for block in blocks:
                self.max_in_flight = 1
                consume(*_count_block(block, *args))
        else:
            self._run_pool(blocks, args, consume)

    def _run_pool(self, blocks: Iterator, args: tuple, consume: Callable) -> None:
        import multiprocessing

        # "spawn": a fresh interpreter per worker, safe whatever threads this process runs.
        pool = multiprocessing.get_context("spawn").Pool(
            self.workers, initializer=_ignore_interrupts
        )
        pending: deque = deque()
        try:
            for block in blocks:
                pending.append(pool.apply_async(_count_block_compact, (block, *args)))
                self.max_in_flight = max(self.max_in_flight, len(pending))
                if len(pending) >= self.limit:
                    consume(*pending.popleft().get())
            while pending:
                consume(*pending.popleft().get())
            pool.close()
        except BaseException:
            # An error or Ctrl-C: the blocks being counted (at most ``limit``) may finish first,
            # for SETTLE_SECONDS at most. A worker stopped while it sends its result leaves the
            # pool's result queue locked, and CPython's ``Pool.terminate`` then waits for ever
            # (seen in 2 of 33 runs of a test that kills the reducer mid-count).
            pool.close()
            settled = time.monotonic() + SETTLE_SECONDS
            for result in pending:
                result.wait(max(0.0, settled - time.monotonic()))
            raise
        finally:  # stop the workers now, and wait until they are gone
            pool.terminate()
            pool.join()

    def _run_dask(self, blocks: Iterator, args: tuple, consume: Callable) -> None:
        client = self.client
        pending: deque = deque()
        try:
            for block in blocks:
                pending.append(client.submit(_count_block_compact, block, *args, pure=False))
                self.max_in_flight = max(self.max_in_flight, len(pending))
                if len(pending) >= self.limit:
                    consume(*_dask_result(client, pending.popleft()))
            while pending:
                consume(*_dask_result(client, pending.popleft()))
        finally:
            if pending:
                client.cancel(list(pending))


def _dask_result(client: object, future: object) -> tuple:
    """A Dask future's result, waited for here: polling keeps Ctrl-C in this thread (no
    asyncio task of the client's is left waiting, to print a traceback when it is closed),
    and a cluster with no worker for ``DASK_NO_WORKER_SECONDS`` is a CorpusError, not a wait
    forever."""
    idle_since = None
    checked = time.monotonic()
    while not future.done():
        time.sleep(DASK_POLL_SECONDS)
        now = time.monotonic()
        if now - checked < 0.5:
            continue
        checked = now
        if sum(client.nthreads().values()):
            idle_since = None
            continue
        idle_since = now if idle_since is None else idle_since
        if now - idle_since >= DASK_NO_WORKER_SECONDS:
            where = getattr(getattr(client, "scheduler", None), "address", None) or "the scheduler"
            raise CorpusError(
                f"the Dask cluster at {where} has had no worker for"
                f" {DASK_NO_WORKER_SECONDS:g} s, so no block can be counted: start workers"
                f" (dask worker {where}), or count without Dask (leave out client=, --dask)")
    return future.result()


# ----------------------------------------------------------------------------------------------


def count_pieces(
    sources: CorpusSources,
    *,
    pattern: str | PipelineSplit,
    special_tokens: Iterable[str] = (),
    workers: int | None = None,
    errors: str = "strict",
    block_bytes: int = DEFAULT_BLOCK_BYTES,
    on_bytes: BytesCallback | None = None,
    client: object = None,
    timeout: float | None = None,
    max_in_flight: int | None = None,
) -> PieceCounts:
    """How often each split piece occurs in a corpus, in first-seen order (see the module).

    ``sources``: a path, a list of paths, or an iterator of str (a list of str is read as paths).
    ``pattern``: the split pattern ("" for none), or ``PipelineSplit(tok, base.split_from_json)`` for a tokenizer
    with a tokenizer.json pipeline (its normalized, pre-tokenized chunks); the text is first cut at ``special_tokens``,
    which are not counted, as ``train`` does. ``workers``: processes counting blocks (default:
    every core, or 1 for files of one block; 1 counts here). ``client``: a
    ``dask.distributed.Client`` to count on its cluster instead (the files must be readable at
    the same paths there). ``errors="replace"`` reads bytes
    that are not UTF-8 as U+FFFD. ``on_bytes(done, total)`` after every block. ``timeout``: the
    seconds the split may take on one block. At most ``max_in_flight`` blocks (default: two per
    worker) are read or counted at a time. Bad input raises ``CorpusError``.
    """
    specials = training_specials(special_tokens)
    if errors not in ("strict", "replace"):
        raise CorpusError(f'errors must be "strict" or "replace", not {shorten(errors)}')
    if isinstance(block_bytes, bool) or not isinstance(block_bytes, int) or block_bytes < 1:
        raise CorpusError(f"block_bytes must be a whole number of 1 or more, not {shorten(block_bytes)}")
    cores = os.cpu_count() or 1
    chosen = False
    if client is not None:
        try:
            workers = sum(client.nthreads().values())  # threads on every Dask worker
        except Exception:  # a client-like object without nthreads(): the count is unknown
            workers = 0
    elif workers is None:
        workers = cores
        chosen = True  # the default: a corpus of one block is counted here (no processes)
    elif isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= cores:
        raise CorpusError(
            f"workers must be a whole number from 1 to {cores} (this machine's cores), not"
            f" {shorten(workers)}; leave it out to use every core"
        )
    if max_in_flight is None:
        max_in_flight = 2 * max(workers, 1)
    elif isinstance(max_in_flight, bool) or not isinstance(max_in_flight, int) or max_in_flight < 1:
        raise CorpusError(f"max_in_flight must be a whole number of 1 or more, not {shorten(max_in_flight)}")
    try:
        cutter = _Cutter(pattern, specials, timeout)
    except ValueError as e:
        raise CorpusError(str(e)) from None

    if isinstance(sources, str | os.PathLike):
        sources = [sources]
    if isinstance(sources, list | tuple):
        if not sources:
            raise CorpusError("no corpus files given; give at least one path")
        for s in sources:
            if not isinstance(s, str | os.PathLike):
                raise CorpusError(f"a corpus path must be a str or a Path, not {shorten(s)}")
        files = _Files([os.fspath(s) for s in sources])
        total: int | None = files.total
        if total == 0:
            raise CorpusError(f"the corpus is empty: {', '.join(files.paths)} hold no bytes")
        blocks: Iterator = _file_blocks(files, block_bytes, cutter)
        what = ", ".join(files.paths)
        if chosen and total <= block_bytes:
            workers = 1
    elif isinstance(sources, Iterable) and not isinstance(sources, bytes | bytearray | dict):
        total, what = None, "the corpus iterator"
        blocks = _text_blocks(iter(sources), block_bytes, cutter)
    else:
        raise CorpusError(
            f"sources must be a path, a list of paths or an iterator of str, not {shorten(sources)}"
        )

    counts: dict[bytes, int] | PieceTable = {}
    done = 0
    n_blocks = 0
    runner = _Runner(workers, client, max_in_flight)
    reducer: _Reducer | None = None  # with worker processes, what adds up (see the module)

    def consume(block_counts: dict[bytes, int] | PieceTable, size: int) -> None:
        nonlocal done, n_blocks
        if reducer is not None:
            reducer.add(block_counts)
        else:
            _add_table(counts, block_counts)
        done += size
        n_blocks += 1
        if on_bytes is not None:
            on_bytes(done, total)

    try:
        if runner.uses_pool:
            reducer = _Reducer()
        runner.run(blocks, (pattern, specials, errors, timeout), consume)
        if done == 0:
            raise CorpusError(f"the corpus is empty: {what} gave no text")
        if reducer is not None:
            counts = reducer.result()
    finally:
        if reducer is not None:
            reducer.close()
    return PieceCounts(counts, done, n_blocks, runner.max_in_flight, workers, len(counts))


class FileBlocks(NamedTuple):
    """Corpus files cut into blocks: their total size and the blocks, in order."""

    total: int  # bytes in all the files
    blocks: Iterator[tuple]  # ((path, start, end), ...) each; read_block gives its text


def file_blocks(
    paths: Iterable[str | os.PathLike],
    *,
    pattern: str,
    special_tokens: Iterable[str] = (),
    block_bytes: int = DEFAULT_BLOCK_BYTES,
) -> FileBlocks:
    """The blocks ``count_pieces`` cuts files into, for other work on a corpus in parallel (the
    command line's ``bpe-lab encode``): each cut falls after a special token or where the
    pattern's proven rule allows it (see the module), so encoding the
    blocks one by one gives the ids of encoding the whole text. Blocks are found as they are
    asked for; nothing but the text around a cut is read here.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "c.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("one<|e|>two<|e|>three")
    >>> cut = file_blocks([path], pattern="[a-z]+", special_tokens=["<|e|>"], block_bytes=4)
    >>> cut.total, [read_block(b)[0] for b in cut.blocks]
    (21, ['one<|e|>', 'two<|e|>', 'three'])
    """
    specials = training_specials(special_tokens)
    files = _Files([os.fspath(p) for p in paths])
    return FileBlocks(files.total, _file_blocks(files, block_bytes, _Cutter(pattern, specials, None)))
