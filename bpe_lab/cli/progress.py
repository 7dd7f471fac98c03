"""What the command line shows while it works: tqdm progress bars on a terminal, nothing when
its output goes to a pipe or a file, and one summary line at the end.

Bars and messages go to stderr; the summary line goes to stdout, so that
``bpe-lab train ... | tee log`` keeps the line and nothing else.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import threading
import time
from typing import TextIO

from tqdm import tqdm


def is_terminal(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (stderr by default) is a terminal, where the bars are drawn."""
    stream = sys.stderr if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _width() -> dict:
    """tqdm's size settings: follow the terminal when it has a size; a terminal that says 0x0
    (a fresh pseudo-terminal) gets $COLUMNS/$LINES or 80x24, since tqdm draws nothing on a
    terminal of 0 lines."""
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
        if size.columns > 0 and size.lines > 0:
            return {"dynamic_ncols": True}
    except (OSError, ValueError, AttributeError):
        pass
    fallback = shutil.get_terminal_size((80, 24))
    return {"ncols": fallback.columns or 80, "nrows": fallback.lines or 24}


class Bars:
    """The bars of one command: ``bytes`` (read, with MB/s and ETA), then ``steps`` (merges or
    tokens, with their rate). On a pipe every call is a no-op, so the callers need not ask."""

    def __init__(self, show: bool | None = None) -> None:
        self.show = is_terminal() if show is None else show
        self._bar: tqdm | None = None
        self.bytes_done = 0
        self.steps_done = 0

    def start_bytes(self, total: int, what: str = "reading") -> None:
        self.close()
        self.bytes_done = 0
        if self.show:
            self._bar = tqdm(total=total, desc=what, unit="B", unit_scale=True, unit_divisor=1000,
                             file=sys.stderr, leave=True, smoothing=0.1, miniters=1,
                             mininterval=0.2, **_width())

    def add_bytes(self, n: int) -> None:
        """``n`` more bytes are done."""
        self.set_bytes(self.bytes_done + n)

    def set_bytes(self, done: int, total: int | None = None) -> None:
        """``done`` bytes in all are read: the corpus reader's ``on_bytes(done, total)``."""
        before, self.bytes_done = self.bytes_done, done  # counted first: Ctrl-C may come in tqdm
        if self._bar is not None:
            if total is not None and total != self._bar.total:
                self._bar.total = total
            self._bar.update(done - before)

    def start_steps(self, total: int, what: str = "merging", unit: str = " merges") -> None:
        self.close()
        self.steps_done = 0
        if self.show:
            self._bar = tqdm(total=total, desc=what, unit=unit, file=sys.stderr, leave=True,
                             mininterval=0.2, **_width())

    def set_steps(self, done: int) -> None:
        before, self.steps_done = self.steps_done, max(done, self.steps_done)
        if self._bar is not None and self.steps_done > before:
            self._bar.update(self.steps_done - before)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _rss(pid: int) -> int:
    """Resident bytes of process ``pid`` now (``/proc/<pid>/statm``), or 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _children(pid: int) -> list[int]:
    """The live children of ``pid``: its threads' ``children`` files, or else (a kernel without
    them) every process whose parent it is."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    try:
        for tid in tasks:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.extend(int(c) for c in f.read().split())
        return found
    except FileNotFoundError:  # no such file: CONFIG_PROC_CHILDREN is off; look at every process
        pass
    except OSError:
        return found
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
                if int(stat[stat.rindex(b")") + 2:].split()[1]) == pid:
                    found.append(int(name))
            except (OSError, ValueError):
                pass
    return found


def tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its live descendants, now."""
    total, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss(pid)
        todo.extend(_children(pid))
    return total


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
CAN_SAMPLE = os.path.exists(f"/proc/{os.getpid()}/statm")


class TreeMemory:
    """The peak resident memory of a process tree (``root``: this process by default, with its
    worker processes), sampled every ``interval`` seconds by a daemon thread while it runs:
    at each sample the resident sizes of the root and its live descendants are added up, and the
    largest sum is kept. Peaks between two samples can be missed, so ``peak`` is also never
    below what ``getrusage`` says this process alone reached.

    Where there is no ``/proc`` (macOS), nothing is sampled and ``peak`` is the process's own
    peak plus its largest finished child (``getrusage``), which ``words`` says.

        >>> with TreeMemory() as memory:
        ...     data = bytearray(50_000_000)
        >>> memory.peak >= 50_000_000
        True
    """

    def __init__(self, root: int | None = None, interval: float = 0.05) -> None:
        self.root = os.getpid() if root is None else root
        self.interval = interval
        self.sampled = 0  # the largest sum seen
        self.samples = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> int:
        """Take one sample now; the tree's resident bytes."""
        now = tree_rss(self.root)
        self.samples += 1
        if now > self.sampled:
            self.sampled = now
        return now

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(self.interval):
                return

    def start(self) -> TreeMemory:
        if CAN_SAMPLE and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="tree-memory", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
            self.sample()

    def __enter__(self) -> TreeMemory:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def peak(self) -> int:
        own, children = peak_memory()
        if not CAN_SAMPLE:
            return own + children
        if self.root != os.getpid():
            return self.sampled
        return max(self.sampled, own)

    def words(self) -> str:
        """``peak memory 312.4 MB over the process tree`` (workers included, sampled)."""
        if not CAN_SAMPLE:
            return memory_words()
        if self._thread is not None:
            self.sample()
        return f"peak memory {megabytes(self.peak)} over the process tree"


def peak_memory() -> tuple[int, int]:
    """Peak resident memory in bytes: ``(this process, its largest finished child)``.

    ``getrusage`` reports kilobytes on Linux (bytes on macOS); children count once they have
    ended and been waited for, which worker pools do when they close. Their sum is not the
    tree's peak (the workers' peaks and this process's need not coincide): ``TreeMemory``
    samples that.
    """
    scale = 1 if sys.platform == "darwin" else 1024
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale
    return own, children


def megabytes(n: float) -> str:
    """``12.3 MB``: a byte count as people read it (10**6 bytes, as tqdm's MB/s); ``9.2 kB``
    below a megabyte."""
    if n < 1e6:
        return f"{n / 1e3:,.1f} kB"
    return f"{n / 1e6:,.1f} MB"


def memory_words() -> str:
    """``peak memory 312.4 MB (here) + 140.2 MB (largest worker)``, or without the workers:
    where the tree cannot be sampled."""
    own, children = peak_memory()
    if children:
        return (f"peak memory {megabytes(own + children)} ({megabytes(own)} here +"
                f" {megabytes(children)} the largest worker)")
    return f"peak memory {megabytes(own)}"


class Clock:
    """Seconds since the command started."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start

    def words(self) -> str:
        s = self.seconds
        if s < 10:
            return f"{s:.2f} s"
        if s < 60:
            return f"{s:.1f} s"
        return f"{int(s // 60)} min {s % 60:04.1f} s"
