"""Chunks laid out as nodes, and the first count of their pairs: ``merge_loop.Layout``'s start.

The nodes, their codes and pair ids are described in merge_loop.py. Here they are made:

- ``lay_table`` / ``lay_chunks``: a ``training.PieceTable`` (or ``(chunk, occurrences)``) as
  tokens a node, a separator before the first chunk and after each, with every chunk's start
  and weight (``Laid``);
- ``Part``: every adjacent pair of a run of nodes counted and numbered (mostly in C); ``place``
  then writes each node into its pair's places, once every run is counted;
- ``Helper``: a large table laid out and counted in two processes, this one and a helper
  process. Each run's pairs are numbered in first-seen order, the second run's new ones after
  the first's, and the runs are joined (``join_runs``), so the layout is the one a single
  process makes, byte for byte (tests/core/test_first_count.py). The corpus trainer asks for it
  with 2 workers or more, whose second core is idle then: on web-like 200 MB, laying out and the
  first count 5.4 s in one process, 3.7 s with the helper (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate, chain, compress, repeat
from operator import add, mul, sub

DEAD, SEP, LAST = -1, -2, -3  # pid of a merged node, of a separator; LAST - t: a chunk's last
HEAVY = 255  # light[i]: a chunk that occurs this often or more is found by bisection
STRIDE = 1 << 16  # nodes whose codes (or pair ids) are made at a time: an even number
BATCH = 1 << 16  # pieces of a table laid out at a time (a list of that many slices at once)
PARALLEL_NODES = 1 << 21  # a smaller table is laid out in one process (a helper costs more)
HELPER_SHARE = 0.5  # of a table's bytes, laid out in the helper (the table's end)
_LIGHT = [bytes((w if w < HEAVY else 0,)) for w in range(HEAVY + 1)]  # a node's light, by weight
_SEPARATOR = {"H": 0xFFFF, "i": -1}  # a separator's token, by typecode: all ones, never a token


class Laid:
    """Chunks laid out: ``tok`` (a token a node; a separator's all ones), chunk k's first node
    ``starts[k]`` and its occurrences ``weight[k]``, whether every chunk occurs at least once
    (``positive``), and the tokens of the text (``total``: every count is at most this)."""

    __slots__ = ("tok", "starts", "weight", "positive", "total")

    def __init__(self, tok: array, starts: array, weight: array, positive: bool,
                 total: int) -> None:
        self.tok, self.starts, self.weight = tok, starts, weight
        self.positive, self.total = positive, total


def lay_chunks(chunks: Iterable[tuple[Sequence[int], int]], typecode: str) -> Laid:
    """``(chunk, occurrences)`` laid out one by one, tokens of ``typecode`` ("H" or "i")."""
    sep = _SEPARATOR[typecode]
    tok = array(typecode, [sep])  # the separator before the first chunk
    laid = Laid(tok, array("q"), array("I"), True, 0)
    weight = laid.weight
    for chunk, occurrences in chunks:
        if chunk:
            laid.starts.append(len(tok))
            tok.extend(chunk)
            tok.append(sep)
            if occurrences <= 0:
                laid.positive = False
            try:
                weight.append(occurrences)
            except OverflowError:  # 2**32 occurrences or more: 8 bytes a weight from now on
                weight = laid.weight = array("Q", weight)
                weight.append(occurrences)
            laid.total += occurrences * len(chunk)
    return laid


def lay_table(table, typecode: str) -> Laid:
    """A ``PieceTable``'s pieces laid out in C, BATCH pieces at a time: joined with a byte
    between them, widened to tokens by one slice assignment, the separators then set one by
    one; the starts and weights from the ends and counts. The table is emptied first, so that
    its bytes are freed once joined. (An empty piece holds no node.)"""
    data, ends, counts = table.data, table.ends, table.counts
    table.data, table.ends, table.counts = b"", array("Q"), array("Q")
    begins = array("q", chain((0,), ends[:-1]))
    lengths = array("q", map(sub, ends, begins))
    if 0 in lengths:
        counts = array("Q", compress(counts, lengths))
        begins = array("q", compress(begins, lengths))
        lengths = array("q", compress(lengths, lengths))
    try:
        weight = array("I", counts)
    except OverflowError:  # 2**32 occurrences or more: 8 bytes a weight
        weight = array("Q", counts)
    positive = 0 not in counts  # (counts are unsigned)
    total = sum(map(mul, counts, lengths))
    laid = bytearray(1)  # the separator before the first chunk
    for lo in range(0, len(lengths), BATCH):
        at = begins[lo:lo + BATCH]
        laid += b"\0".join(map(data.__getitem__,
                               map(slice, at, map(add, at, lengths[lo:lo + BATCH]))))
        laid += b"\0"
    del data
    sep, size = _SEPARATOR[typecode], array(typecode).itemsize
    tok = array(typecode, bytes(size * len(laid)))
    with memoryview(tok) as view, view.cast("B") as raw:
        raw[0 if sys.byteorder == "little" else size - 1::size] = laid
    del laid
    starts = array("q")
    if lengths:
        starts.extend(accumulate(map((1).__add__, lengths[:-1]), initial=1))
    tok[0] = sep
    for k in starts:
        tok[k - 1] = sep
    tok[-1] = sep
    return Laid(tok, starts, weight, positive, total)


def code_tokens(code: int, bits: int) -> tuple[int, int]:
    """The two tokens of a node's code (tokens of ``bits`` bits)."""
    ones = (1 << bits) - 1
    if sys.byteorder == "little":
        return code & ones, code >> bits & ones
    return code >> bits & ones, code & ones


class Part:
    """Every adjacent pair of a run of laid-out nodes: counted in ``__init__``, numbered by
    ``number``, its pair ids given to the nodes by ``finish`` (``place`` then places the nodes,
    once every run is counted and joined).

    Every node's *code* (its token and the next, as the bytes of the two give them: one read
    of the tokens' buffer for the even nodes and one for the odd) is made in C, and so are the
    codes' counts in first-seen order (a ``Counter``) and the nodes' pair ids; only the chunks
    that occur other than once are visited in Python (their weight bytes, and their pairs
    grouped by weight). A code with a separator's all ones in it is a separator's (no pair
    starts there) or a chunk's last node's. ``laid.tok`` is let go once the codes are made."""

    def __init__(self, laid: Laid) -> None:
        tok, weight, starts = laid.tok, laid.weight, laid.starts
        laid.tok = None
        n, size = len(tok), tok.itemsize  # n >= 1: the separator before the first chunk
        self.bits = 8 * size
        self.code_type = code_type = "i" if size == 2 else "q"  # (signed: the bits are the code)
        codes = array(code_type, bytes(2 * size * (n - 1)))  # node i's code; none for the last
        half = codes
        with memoryview(tok) as view, view.cast("B") as raw:
            for at in range(0, n - 1, STRIDE):  # STRIDE nodes at a time: no copy of them all
                to = min(at + STRIDE, n - 1)
                for odd in (0, 1):
                    half = array(code_type)
                    half.frombytes(raw[size * (at + odd):size * (to + (to - at - odd) % 2)])
                    codes[at + odd:to:2] = half
        del tok, half
        self.codes = codes
        self.places_of = places_of = Counter(codes)  # a pair's places, in first-seen order (its
        # count adds (w - 1) a place in a chunk of weight w: ``more``)
        more = self.more = Counter()
        by_weight: dict[int, array] = {}  # codes of the pairs in chunks of one weight, ...
        held = 0  # ... at most about STRIDE of them at a time

        def add_up() -> None:
            for w, there in by_weight.items():
                for code, times in Counter(there).items():
                    more[code] += (w - 1) * times
            by_weight.clear()

        bounds = array("q", starts)
        bounds.append(n)  # the next chunk would start after the last separator
        light = self.light = bytearray(b"\1") * n
        for k, w in enumerate(weight):
            if w != 1:
                light[bounds[k]:bounds[k + 1]] = _LIGHT[min(w, HEAVY)] * (bounds[k + 1] - bounds[k])
                there = by_weight.get(w)
                if there is None:
                    there = by_weight[w] = array(code_type)
                there.extend(codes[bounds[k]:bounds[k + 1] - 2])
                held += bounds[k + 1] - bounds[k]
                if held > STRIDE:
                    add_up()
                    held = 0
        add_up()
        del places_of

    def number(self, value: dict[int, int], pairs: list[int]) -> None:
        """Gives the codes first seen here their pid in ``value`` (code -> pid: a pair id, SEP
        or LAST - t); a new pair's id is its code's place in ``pairs``, appended to."""
        ones = (1 << self.bits) - 1
        for code in self.places_of:
            if code not in value:
                a, b = code_tokens(code, self.bits)
                if a == ones:
                    value[code] = SEP
                elif b == ones:
                    value[code] = LAST - a
                else:
                    value[code] = len(pairs)
                    pairs.append(code)

    def finish(self, value: dict[int, int],
               pairs: list[int]) -> tuple[array, list[int], list[int]]:
        """The nodes' pids (of ``value``, each code's in place), then for every pair of
        ``pairs`` its count and its number of places here."""
        codes = self.codes
        del self.codes
        if self.code_type == "i":  # each code becomes its node's pid in place, STRIDE at a time
            for at in range(0, len(codes), STRIDE):
                codes[at:at + STRIDE] = array("i", map(value.__getitem__, codes[at:at + STRIDE]))
            pid = codes
        else:
            pid = array("i", map(value.__getitem__, codes))
        del codes
        pid.append(SEP)
        places_of, more = self.places_of, self.more
        sizes = [places_of[code] for code in pairs]
        return pid, list(map(add, sizes, map(more.__getitem__, pairs))), sizes


def place(pid: array, sizes: list[int]) -> array:
    """Every pair's places (its nodes), pair by pair in id order, ascending: one pass over the
    nodes, once they are all counted (``sizes[p]``: pair p's places)."""
    fill = list(accumulate(sizes, initial=0))
    places = array("i", bytes(4 * fill.pop()))
    for i, p in enumerate(pid):
        if p >= 0:
            places[fill[p]] = i
            fill[p] += 1
    return places


class Counted:
    """A run of nodes counted: the pairs' codes in id order (of every part before it too),
    every pair's count and number of places here (``sizes``), the nodes' pids and weight
    bytes, and the run's ``Laid`` (its ``tok`` gone)."""

    __slots__ = ("pairs", "counts", "sizes", "pid", "light", "laid")

    def __init__(self, pairs: list[int], counts: list[int], sizes: list[int], pid: array,
                 light: bytearray, laid: Laid) -> None:
        self.pairs, self.counts, self.sizes = pairs, counts, sizes
        self.pid, self.light, self.laid = pid, light, laid


def count_here(laid: Laid, known: Callable[[], list[int]] = list,
               told: Callable[[list[int]], None] | None = None) -> Counted:
    """The pairs of ``laid`` counted in this process. ``known()`` gives the pairs numbered in
    the run before, once this run's codes are counted; ``told`` hears the pairs numbered."""
    part = Part(laid)
    pairs = list(known())
    value = dict(zip(pairs, range(len(pairs))))
    part.number(value, pairs)
    if told is not None:
        told(pairs)
    pid, counts, sizes = part.finish(value, pairs)
    return Counted(pairs, counts, sizes, pid, part.light, laid)


CHUNK = 1 << 22  # bytes of an array sent at a time (a multiple of 8): no whole copy in flight
_ORDER = ("pid", "light", "starts", "weight")  # the order a tail's arrays come in


class Tail:
    """What ``join_runs`` reads of the run after another: the header (pairs, counts, sizes,
    positive, total, the weights' typecode) and its arrays as chunks of bytes, in _ORDER. Made
    of a ``Counted`` here (``of``), or read from the helper process (``Helper``)."""

    def __init__(self, pairs: list[int], counts: list[int], sizes: list[int], positive: bool,
                 total: int, weight_type: str, chunks: Callable[[str], Iterable]) -> None:
        self.pairs, self.counts, self.sizes = pairs, counts, sizes
        self.positive, self.total, self.weight_type = positive, total, weight_type
        self.chunks = chunks
        self.lengths: list[int] = []  # (of ``of``) the arrays' bytes, in _ORDER

    @classmethod
    def of(cls, counted: Counted) -> Tail:
        laid = counted.laid
        arrays = {"pid": counted.pid, "light": counted.light, "starts": laid.starts,
                  "weight": laid.weight}
        tail = cls(counted.pairs, counted.counts, counted.sizes, laid.positive, laid.total,
                   laid.weight.typecode, lambda name: byte_chunks(arrays.pop(name)))
        tail.lengths = [memoryview(arrays[name]).nbytes for name in _ORDER]  # (bytes)
        return tail


def byte_chunks(buffer: array | bytearray) -> Iterator[memoryview]:
    """A buffer's bytes, CHUNK at a time."""
    with memoryview(buffer) as view, view.cast("B") as raw:
        for at in range(0, len(raw), CHUNK):
            yield raw[at:at + CHUNK]


def _of_bytes(typecode: str, chunk) -> array:
    got = array(typecode)
    got.frombytes(chunk)
    return got


def join_runs(head: Counted, tail: Tail) -> Counted:
    """Two runs counted as one: ``tail`` (whose first node, a separator, is ``head``'s last)
    numbered after ``head``. ``head``'s arrays grow in place, a chunk of the tail's at a time:
    the join holds no second copy."""
    pairs = tail.pairs  # head's, then the pairs first seen in tail
    extra = len(pairs) - len(head.pairs)
    head_sizes = head.sizes + [0] * extra
    counts = list(map(add, chain(head.counts, repeat(0, extra)), tail.counts))
    sizes = list(map(add, head_sizes, tail.sizes))
    pid, light, laid = head.pid, head.light, head.laid
    offset = len(pid) - 1  # the tail's first node: a separator, head's last node
    pid.pop()
    for chunk in tail.chunks("pid"):
        pid.frombytes(chunk)
    skip = 1  # the tail's first node's weight byte: head's last node keeps its own
    for chunk in tail.chunks("light"):
        light += chunk[skip:]
        skip = 0
    for chunk in tail.chunks("starts"):
        laid.starts.extend(map(offset.__add__, _of_bytes("q", chunk)))
    if laid.weight.typecode != tail.weight_type:
        laid.weight = array("Q", laid.weight)
    for chunk in tail.chunks("weight"):
        laid.weight.extend(iter(_of_bytes(tail.weight_type, chunk)))
    laid.positive = laid.positive and tail.positive
    laid.total += tail.total
    return Counted(pairs, counts, sizes, pid, light, laid)


def split_table(table, share: float | None = None) -> tuple[object, object]:
    """A ``PieceTable`` cut in two at a piece, about ``share`` (HELPER_SHARE) of its bytes in
    the second: the two tables (of the table's type). The table is emptied."""
    data, ends, counts = table.data, table.ends, table.counts
    table.data, table.ends, table.counts = b"", array("Q"), array("Q")
    share = HELPER_SHARE if share is None else share
    m = min(bisect_left(ends, int(len(data) * (1 - share))) + 1, len(ends))
    cut = ends[m - 1] if m else 0
    return (type(table)(data[:cut], ends[:m], counts[:m]),
            type(table)(data[cut:], array("Q", map(sub, ends[m:], repeat(cut))), counts[m:]))


class Helper:
    """The end of a large ``PieceTable`` laid out and counted in a helper process (a spawned
    ``Process``, a ``Pipe``) while this process does the start: ``share`` cuts the table, and
    once this process has numbered its pairs, ``tell`` sends them, so that the helper numbers
    its new pairs after them; ``tail`` gives the end to ``join_runs``, read as it comes. If the
    helper fails (cannot start, out of memory, killed) before it sends, the end is counted here
    instead: slower, the same layout. Like the corpus workers it leaves Ctrl-C to this
    process; ``close`` (always called) stops it."""

    def __init__(self, table, typecode: str) -> None:
        import multiprocessing
        import threading

        self.table, self.typecode = table, typecode
        self.failed: str | None = None
        self.process = self.conn = theirs = None
        try:
            context = multiprocessing.get_context("spawn")
            self.conn, theirs = context.Pipe()
            process = context.Process(target=_help, args=(theirs,), daemon=True,
                                      name="bpe_core first count")
            process.start()
            self.process = process
            theirs.close()
        except Exception as e:  # no process here (a sandbox, no semaphores): counted here
            self.failed = f"{type(e).__name__}: {e}"
            for end in (self.conn, theirs):
                if end is not None:
                    end.close()
            return
        # The end is sent while this process lays out the start: the helper reads it only once
        # it has started (Python and bpe_core imported).
        self.sender = threading.Thread(target=self._send, daemon=True, name="bpe_core first count")
        self.sender.start()

    @classmethod
    def share(cls, table, typecode: str) -> tuple[object, Helper | None]:
        """``(the table to lay out here, a helper for the rest)``, or ``(table, None)`` when
        the table is small (under PARALLEL_NODES nodes)."""
        if len(table.data) + len(table.ends) < PARALLEL_NODES:
            return table, None
        head, tail = split_table(table)
        return head, cls(tail, typecode)

    def _send(self, pairs: list[int] | None = None) -> None:
        try:
            if pairs is None:  # the table (its buffers as they are: no pickled copy)
                self.conn.send(self.typecode)
                for buffer in (self.table.data, self.table.ends, self.table.counts):
                    self.conn.send_bytes(buffer)
            else:
                self.conn.send(pairs)
        except (OSError, ValueError) as e:  # the helper stopped (or this end was closed)
            self.failed = self.failed or f"{type(e).__name__}: {e}"

    def tell(self, pairs: list[int]) -> None:
        """The pairs numbered here, in id order: the helper's new pairs come after them."""
        if self.failed is None:
            self.sender.join()
            self._send(pairs)

    def tail(self, pairs: list[int]) -> Tail:
        """The end, numbered after ``pairs`` (this process's, as told)."""
        if self.failed is None:
            try:
                said = self.conn.recv()
                if not isinstance(said, str):
                    self.table = None
                    *header, lengths = said
                    return Tail(*header, lambda name: self._chunks(lengths[_ORDER.index(name)]))
                self.failed = said
            except (OSError, EOFError) as e:
                self.failed = f"{type(e).__name__}: {e}"
            self.close()
        return Tail.of(count_here(lay_table(self.table, self.typecode), lambda: pairs))

    def _chunks(self, length: int) -> Iterator[bytes]:
        """``length`` bytes of an array, as the helper sends them."""
        while length > 0:
            try:
                chunk = self.conn.recv_bytes()
            except (OSError, EOFError):  # killed while it sent (out of memory, most likely)
                self.process.join()
                raise MemoryError(
                    f"the process laying out the end of the piece table stopped while sending"
                    f" it (exit code {self.process.exitcode}); train with 1 worker, or on less"
                    " text") from None
            length -= len(chunk)
            yield chunk

    def close(self) -> None:
        if self.process is None:
            return
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.conn.close()
        self.process = None


def _help(conn) -> None:
    """The helper's work (see ``Helper``): the end of the table laid out and counted, its
    pairs numbered after the ones the main process tells, and all sent back, CHUNK bytes at a
    time, each array freed once sent."""
    import signal
    from types import SimpleNamespace

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        typecode = conn.recv()
        table = SimpleNamespace(data=conn.recv_bytes(), ends=array("Q"), counts=array("Q"))
        table.ends.frombytes(conn.recv_bytes())
        table.counts.frombytes(conn.recv_bytes())
        counted = count_here(lay_table(table, typecode), conn.recv)  # (table emptied)
        tail = Tail.of(counted)
        del counted
        conn.send((tail.pairs, tail.counts, tail.sizes, tail.positive, tail.total,
                   tail.weight_type, tail.lengths))
        for name in _ORDER:
            for chunk in tail.chunks(name):
                conn.send_bytes(chunk)
    except EOFError:  # the main process closed its end: it stopped
        return
    except BaseException as e:  # MemoryError, most likely: said to the main process
        try:
            conn.send(f"{type(e).__name__}: {e}")
        except BaseException:
            pass
