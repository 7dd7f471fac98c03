"""The budget of work whose cost a user or a file controls, and the child process that does it.

Some work cannot be bounded by reading its input first: a split pattern of 20 characters can
backtrack for hours on 2 KB of text, and a Python thread stuck in the regex engine cannot be
stopped. So such work runs in a worker process (a few are kept, one call at a time each), with
an address-space limit (``RLIMIT_AS``) set in the child, and a deadline on the wall clock kept by
the waiting thread: when it passes, the worker is killed (SIGKILL) and the thread gets a
``BudgetExceeded`` (a ValueError) whose message names the limit and what to change. The clock is
the call's own (wall time from the request to the answer), never the process's CPU: three busy
threads beside it do not spend its budget.

Where the line is (docs/DESIGN.md): built-in patterns stay in-process; a split pattern a user
typed, a tokenizer file's regexes and added tokens, and the reading of a file go to a worker
whenever a budget applies (``budget_for``).

The policy: the app and the command line call ``set_untrusted_budget`` once, and every
tokenizer, reader and trainer in the process then uses it. A library user who sets nothing gets
no bound on their own patterns (their choice), and ``FILE_BUDGET`` on what a file controls.
"""

from __future__ import annotations

import atexit
import fcntl
import importlib
import math
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

MB = 1024 * 1024
DEFAULT_SECONDS = 2.0  # the app's and the command line's budget per call (docs/LIMITS.md)
DEFAULT_MEMORY = 512 * MB  # a worker's address space: Python and regex take about 60 MB of it
FILE_SECONDS = 60.0  # reading a file (and, with no policy, what its regexes do), in CPU seconds of
# the worker: a cl100k .tiktoken took over 60 s of wall time at load 20 (nice 10) on 2 cores
FILE_MEMORY = 1024 * MB
READ_BASE_SECONDS = 5.0  # CPU seconds any file may take to read, within the read budget's seconds,
READ_SECONDS_PER_MB = 5.0  # and this many more per MB begun: the slowest 10 MB upload measured (a
# .tiktoken of tokens 2-2,000 bytes long) took 30-43 s of CPU (docs/LIMITS.md); so a 5 KB file
# that backtracks holds a worker for 10 s, not the whole read budget
MAX_WORKERS = 4  # workers busy at once; a call waits for one (within its budget)
MAX_IDLE = 2  # workers kept for the next call
START_SECONDS = 30.0  # a new worker must be ready within this (not counted in the call's budget)
CPU_WALL_FACTOR = 4  # a budget on the CPU clock also ends after this many times its seconds of wall
PROGRESS_EVERY = 0.05  # a worker's training says its progress at most this often (seconds)


@dataclass(frozen=True)
class Budget:
    """What one call may spend: ``seconds`` of wall time, ``memory`` bytes of address space."""

    seconds: float
    memory: int = DEFAULT_MEMORY
    clock: str = "wall"  # "cpu": the worker's own CPU seconds, within CPU_WALL_FACTOR x on the wall

    def __post_init__(self) -> None:
        if self.clock not in ("wall", "cpu"):
            raise ValueError(f"a budget's clock is 'wall' or 'cpu', not {self.clock!r}")
        if not (isinstance(self.seconds, int | float) and 0 < self.seconds < 10**6):
            raise ValueError(f"a budget's seconds must be a positive number, not {self.seconds!r}")
        if not (isinstance(self.memory, int) and self.memory >= 64 * MB):
            raise ValueError(f"a budget's memory must be at least 64 MB (Python and regex need"
                             f" about 60), not {self.memory!r}")


FILE_BUDGET = Budget(FILE_SECONDS, FILE_MEMORY, "cpu")


class BudgetExceeded(ValueError):
    """Work on something a user or a file controls went past its budget; the message names the
    limit and what to change."""


class TimeBudgetExceeded(BudgetExceeded, TimeoutError):
    """Past the budget's seconds (also a TimeoutError, as the regex engine's own timeout was)."""


class MemoryBudgetExceeded(BudgetExceeded):
    """Past the budget's memory."""


_policy: Budget | None = None
_read_policy: Budget = FILE_BUDGET
_train_policy: Budget | None = None
_in_worker = False  # True in a worker: the work is already bounded there, run it here


def mark_worker() -> None:
    """This process is a worker (worker.py): its work is bounded already, so it runs here."""
    global _in_worker
    _in_worker = True


def set_untrusted_budget(seconds: float = DEFAULT_SECONDS, memory: int = DEFAULT_MEMORY, *,
                         read_seconds: float = FILE_SECONDS, read_memory: int = FILE_MEMORY,
                         train_seconds: float | None = None) -> Budget:
    """Bound every piece of untrusted work in this process from now on (the app and the command
    line call it once at start): ``seconds`` and ``memory`` for each call on text (a split
    pattern that is not built in, a tokenizer file's regexes and added tokens), ``read_seconds``
    and ``read_memory`` for reading a tokenizer file, ``train_seconds`` of the worker's CPU
    (and ``memory``) for training a SentencePiece-style or word BPE model (``train_budget``;
    None: those train here, unbounded, as the command line's corpora do). Returns the budget of
    a call on text."""
    global _policy, _read_policy, _train_policy
    _policy = Budget(seconds, memory)
    _read_policy = Budget(read_seconds, read_memory, "cpu")
    _train_policy = None if train_seconds is None else Budget(train_seconds, memory, "cpu")
    return _policy


def clear_untrusted_budget() -> None:
    """Back to the library's default: no bound on your own patterns, ``FILE_BUDGET`` on files."""
    global _policy, _read_policy, _train_policy
    _policy, _read_policy, _train_policy = None, FILE_BUDGET, None


def train_budget() -> Budget | None:
    """The budget of one training of a SentencePiece-style or word BPE model
    (``set_untrusted_budget(train_seconds=...)``): the worker's CPU seconds (and at most
    ``CPU_WALL_FACTOR`` times as many of wall time), the policy's memory; None when none is set,
    and in a worker (the training is bounded there already). Their merge loops are pure Python
    and their cost follows the text and the vocabulary (docs/LIMITS.md), so the app runs them
    where they can be stopped."""
    return None if _in_worker else _train_policy


def untrusted_budget() -> Budget | None:
    """The budget ``set_untrusted_budget`` installed for a call on text, or None."""
    return _policy


def read_budget(size: int | None = None) -> Budget | None:
    """The budget of reading a tokenizer file of ``size`` bytes: the policy's, else
    ``FILE_BUDGET``, its seconds cut to ``READ_BASE_SECONDS`` and ``READ_SECONDS_PER_MB`` for
    each MB begun (None in a worker, where the read is already bounded).

    >>> read_budget(5_000).seconds, read_budget(10 * MB).seconds, read_budget().seconds
    (10.0, 55.0, 60.0)
    """
    if _in_worker:
        return None
    if size is None:
        return _read_policy
    seconds = READ_BASE_SECONDS + READ_SECONDS_PER_MB * max(1, math.ceil(size / MB))
    return replace(_read_policy, seconds=min(_read_policy.seconds, seconds))


def budget_for(timeout: float | None = None, *, from_file: bool = False) -> Budget | None:
    """The budget for one call of untrusted work on text, or None to run it here unbounded.

    ``timeout`` (a tokenizer's ``timeout=``, a corpus's): that many seconds on the wall clock
    (it wins over the policy's seconds; the policy's memory still holds). Else the policy's
    budget; else, for what a file controls (``from_file``), ``FILE_BUDGET``; else None."""
    if _in_worker:
        return None
    policy = _policy
    if timeout is not None:
        return Budget(max(timeout, 1e-3), policy.memory if policy else DEFAULT_MEMORY)
    if policy is not None:
        return policy
    return FILE_BUDGET if from_file else None


def _mb(n: int) -> str:
    return f"{n / MB:,.0f} MB"


def _seconds(s: float) -> str:
    return f"{s:.2g} s" if s < 10 else f"{s:,.0f} s"


# -- the workers ----------------------------------------------------------------------------------

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FRAME_HEADER = struct.Struct("<Q")  # a frame's length, before its pickle (worker.py reads it too)
_F_SETPIPE_SZ = 1031  # Linux
_TICKS = os.sysconf("SC_CLK_TCK")


class _Late(Exception):
    pass


class _Interrupted(Exception):
    """The caller's progress callback raised (the app's Stop, a closed session): the work is
    not wanted any more."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error


class _Worker:
    """One child process serving calls one at a time over its stdin and stdout."""

    def __init__(self, memory: int) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = _ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.memory = memory
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from bpe_core.limits.worker import serve; serve()", str(memory)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
            close_fds=True)
        self.known: list[object] = []  # keys of the shared values the worker holds
        for stream in (self.proc.stdin, self.proc.stdout):  # 1 MB pipes: a text passes in a
            try:  # few writes, each of which waits for the GIL when other threads are busy
                fcntl.fcntl(stream.fileno(), _F_SETPIPE_SZ, 1 << 20)
            except OSError:
                pass
        try:
            if self._receive(time.monotonic() + START_SECONDS) != ("ready",):
                raise EOFError
        except _Late:
            self.kill()
            raise BudgetExceeded("a worker process for untrusted work did not start within"
                                 f" {START_SECONDS:g} s; the machine is overloaded") from None
        except (EOFError, OSError, pickle.UnpicklingError):
            self.kill()
            raise BudgetExceeded("a worker process for untrusted work stopped as it started"
                                 f" (exit code {self.proc.returncode}); this process may be"
                                 " short of memory") from None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _receive(self, deadline: float, cpu_limit: float | None = None) -> Any:
        header = self._read(FRAME_HEADER.size, deadline, cpu_limit)
        return pickle.loads(self._read(FRAME_HEADER.unpack(header)[0], deadline))

    def cpu(self) -> float:
        """The CPU seconds the worker has used (user and system), from /proc."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime

    def _read(self, n: int, deadline: float, cpu_limit: float | None = None) -> bytes:
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Late
            if not select.select([fd], [], [], left if cpu_limit is None else min(left, 0.2))[0]:
                if cpu_limit is not None and self.cpu() >= cpu_limit:
                    raise _Late
                continue
            chunk = os.read(fd, min(n - len(buf), 1 << 20))
            if not chunk:
                raise EOFError
            buf += chunk
        return bytes(buf)

    def call(self, request: tuple, deadline: float, cpu_seconds: float | None = None,
             progress: Any = None) -> Any:
        """The worker's answer to ``request``; its progress frames (``("progress", done,
        total, what)``, when the request asks for them) go to ``progress`` on the way, and
        whatever that raises (the app's Stop) comes out as ``_Interrupted``."""
        cpu_limit = None if cpu_seconds is None else self.cpu() + cpu_seconds
        data = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.write(FRAME_HEADER.pack(len(data)) + data)
        self.proc.stdin.flush()
        while True:
            answer = self._receive(deadline, cpu_limit)
            if answer[0] != "progress":
                return answer
            if cpu_limit is not None and self.cpu() >= cpu_limit:  # (a read that never waits
                raise _Late  # does not look at the clock)
            if progress is not None:
                try:
                    progress(*answer[1:])
                except BaseException as e:  # noqa: BLE001 - said to the caller as it was raised
                    raise _Interrupted(e) from None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


class _Pool:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: list[_Worker] = []
        self.busy = threading.BoundedSemaphore(MAX_WORKERS)
        self.started = 0  # workers started, for tests and the benchmark
        self.starting: list[threading.Thread] = []  # refills under way

    def take(self, memory: int) -> _Worker:
        """An idle worker of ``memory``, or a new one. A start of one under way (a refill after
        a kill) is waited for, not doubled: two interpreters starting at once on a busy machine
        each take twice as long (a fuzzer's input waited 3 s on two such starts at load 8)."""
        for waited in (False, True):
            with self.lock:
                for i, worker in enumerate(self.idle):
                    if worker.memory == memory and worker.proc.poll() is None:
                        return self.idle.pop(i)
                under_way = [t for t in self.starting if t.is_alive()
                             and getattr(t, "memory", None) == memory]
                if waited or not under_way:
                    self.started += 1
                    break
            under_way[0].join(START_SECONDS)
        return _Worker(memory)

    def give_back(self, worker: _Worker) -> None:
        with self.lock:
            if len(self.idle) < MAX_IDLE and worker.proc.poll() is None:
                self.idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        with self.lock:
            idle, self.idle = self.idle, []
        for worker in idle:
            worker.kill()

    def refill(self, memory: int) -> threading.Thread:
        """Start a worker of ``memory`` in the background and keep it idle (when fewer than
        ``MAX_IDLE`` are): the next call finds it ready instead of waiting for a start."""
        def start() -> None:
            with self.lock:
                if len(self.idle) >= MAX_IDLE:
                    return
                self.started += 1
            try:
                self.give_back(_Worker(memory))
            except BudgetExceeded:  # it could not start: the next call tries again
                pass

        thread = threading.Thread(target=start, name="bpe_core worker start", daemon=True)
        thread.memory = memory  # type: ignore[attr-defined]  # what take() may wait for
        with self.lock:
            self.starting = [t for t in self.starting if t.is_alive()] + [thread]
        thread.start()
        return thread


_pool = _Pool()
atexit.register(_pool.close)


def shutdown_workers() -> None:
    """Stop the idle workers, once the starts under way have ended (they are started again
    when needed)."""
    with _pool.lock:
        starting = list(_pool.starting)
    for thread in starting:
        thread.join(START_SECONDS)
    _pool.close()


def prestart_workers(*memories: int) -> list[threading.Thread]:
    """Start idle workers in the background, one per address-space limit given (the policy's
    and its reads' by default), so that the first calls of a server find one ready: a start
    (0.5 s quiet, 4 s at load 20) is not counted in a call's budget, so a call on a cold pool
    would outlast its budget by it. The app calls it at start; a worker killed at its budget is
    replaced the same way."""
    if not memories:
        policy = _policy or Budget(DEFAULT_SECONDS)
        memories = (policy.memory, _read_policy.memory)
    return [_pool.refill(memory) for memory in memories[:MAX_IDLE]]


def workers_ready() -> int:
    """How many idle workers wait for a call."""
    with _pool.lock:
        return sum(worker.proc.poll() is None for worker in _pool.idle)


def workers_started() -> int:
    """How many worker processes this process has started (a call that stays in-process starts
    none)."""
    return _pool.started


def run_bounded(target: str, args: tuple, budget: Budget, *, what: str, fix: str,
                shared: tuple[object, object] | None = None, progress: Any = None) -> Any:
    """``target(*args)`` (``"module:function"``, a function of bpe_core) in a worker process,
    within ``budget``: its answer, or the exception it raised, or ``BudgetExceeded`` naming the
    limit ("``what`` took longer than 2 s ...; ``fix``") once the worker is killed.

    ``shared``: ``(key, value)``, a large value the worker keeps between calls (a tokenizer
    file's pipeline); it is sent once per worker and passed as the first argument.

    ``progress``: ``target`` is given ``progress=`` in the worker, and what it reports reaches
    this callback here, ``progress(done, total, what)``, at most every ``PROGRESS_EVERY``
    seconds (and its last report); its return value is not seen by the worker. When the
    callback raises (the app's Stop button, a session that ended), the worker is killed and the
    exception raised here."""
    if not _pool.busy.acquire(timeout=budget.seconds):
        raise TimeBudgetExceeded(f"{what} waited {_seconds(budget.seconds)} for a free worker"
                                 f" ({MAX_WORKERS} run untrusted work at once); try again")
    try:
        worker = _pool.take(budget.memory)
        cpu = budget.clock == "cpu"  # from the request: a start is not counted
        deadline = time.monotonic() + budget.seconds * (CPU_WALL_FACTOR if cpu else 1)
        key = value = None
        if shared is not None:
            key = shared[0]
            if key not in worker.known:
                value = shared[1]
        try:
            answer = worker.call((target, args, key, value, progress is not None), deadline,
                                 budget.seconds if cpu else None, progress)
        except _Interrupted as stopped:
            worker.kill()
            _pool.refill(budget.memory)
            raise stopped.error from None
        except _Late:
            worker.kill()
            _pool.refill(budget.memory)  # the next call finds one ready
            took = (f"took more than {_seconds(budget.seconds)} of CPU (or"
                    f" {_seconds(budget.seconds * CPU_WALL_FACTOR)} in all)" if cpu
                    else f"took longer than {_seconds(budget.seconds)}")
            raise TimeBudgetExceeded(f"{what} {took} and was stopped; {fix}") from None
        except (EOFError, OSError, pickle.UnpicklingError):
            worker.kill()
            raise MemoryBudgetExceeded(f"{what} stopped its worker process (it may have needed"
                                       f" more than {_mb(budget.memory)}); {fix}") from None
        except BaseException:  # Ctrl-C while waiting: the work is not wanted any more
            worker.kill()
            raise
        if key is not None and value is not None:
            worker.known = [*worker.known[-3:], key]
        _pool.give_back(worker)
    finally:
        _pool.busy.release()
    kind = answer[0]
    if kind == "ok":
        return answer[1]
    if kind == "memory":
        raise MemoryBudgetExceeded(f"{what} needed more than {_mb(budget.memory)} of memory and"
                                   f" was stopped; {fix}")
    if kind == "raise":
        raise answer[1]
    raise ValueError(answer[1])


# -- in the worker ---------------------------------------------------------------------------------


def resolve_target(target: str) -> Any:
    module, _, name = target.partition(":")
    if not module.startswith("bpe_core."):
        raise ValueError(f"a worker runs bpe_core's functions only, not {target}")
    return getattr(importlib.import_module(module), name)
