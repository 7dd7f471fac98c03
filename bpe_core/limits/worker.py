"""A worker process for untrusted work (budget.py starts it): it limits its own address space,
then answers calls read from stdin, one at a time, on stdout. Nothing else is written there (a
print goes to stderr), so the parent reads only answers. It exits when stdin closes (the parent
is gone or let it go), and the parent kills it when a call runs past its deadline."""

from __future__ import annotations

import os
import pickle
import resource
import sys
import time

_KEEP = 4  # shared values kept (a tokenizer file's pipeline), the newest last


def _read_exactly(stream, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = stream.read(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _reporter(send):
    """The ``progress`` a function is given in the worker: it sends ``("progress", done, total,
    what)`` frames, at most every ``PROGRESS_EVERY`` seconds (and when ``done`` reaches
    ``total``), so that a training of 8,192 merges does not send 8,192 of them."""
    from .budget import PROGRESS_EVERY

    last = [0.0]

    def progress(done, total, what=None):
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY or done >= total:
            last[0] = now
            try:
                send(("progress", done, total, what))
            except (pickle.PicklingError, TypeError, AttributeError):
                send(("progress", done, total, None))
    return progress


def serve() -> None:
    memory = int(sys.argv[1])
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints go to stderr, not into the answers
    if memory:  # never above a limit the parent itself runs under (it cannot be raised)
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        memory = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (memory, hard))
    from . import budget

    budget.mark_worker()

    def send(answer: tuple) -> None:
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(budget.FRAME_HEADER.pack(len(data)) + data)
        out.flush()

    send(("ready",))
    shared: dict[object, object] = {}
    stdin = sys.stdin.buffer
    while True:
        header = _read_exactly(stdin, budget.FRAME_HEADER.size)
        if header is None:
            return
        frame = _read_exactly(stdin, budget.FRAME_HEADER.unpack(header)[0])
        if frame is None:
            return
        try:
            target, args, key, value, reports = pickle.loads(frame)
            del frame
            if value is not None:
                shared.pop(key, None)
                shared[key] = value
                while len(shared) > _KEEP:
                    shared.pop(next(iter(shared)))
            function = budget.resolve_target(target)
            if key is not None:
                args = (shared[key], *args)
            result = function(*args, progress=_reporter(send)) if reports else function(*args)
            answer: tuple = ("ok", result)
            del result
        except MemoryError:
            answer = ("memory",)
        except Exception as e:  # said to the caller as it was raised here
            try:
                pickle.loads(pickle.dumps(e))
                answer = ("raise", e)
            except Exception:  # an exception that does not pickle back: its type and words
                answer = ("error", f"{type(e).__name__}: {e}")
        try:
            send(answer)
        except MemoryError:
            send(("memory",))
        except Exception as e:  # an exception that does not pickle: its words
            send(("error", f"{type(e).__name__}: {e}"))
        del answer
