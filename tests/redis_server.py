"""A throwaway Redis server for the tests: Debian's ``redis-server`` on a free loopback port.

``start_redis()`` runs it in a temporary folder, with nothing saved to disk (``--save ''``,
``--appendonly no``), and yields its URL (``redis://127.0.0.1:<port>/0``) once it answers PING;
on leaving, the server is stopped and the folder removed. ``restartable_redis()`` yields a
``RedisProcess`` instead, which a test can ``kill()`` (SIGKILL: an outage) and ``restart()``
(empty, on the same port). It raises RuntimeError when the server
does not start; ``missing_redis()`` says beforehand why it cannot (callers skip, or in CI fail).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

# Debian's package (apt-get install redis-server); BPE_LAB_REDIS_SERVER points elsewhere.
REDIS_SERVER = os.environ.get("BPE_LAB_REDIS_SERVER", "/usr/bin/redis-server")
START_TIMEOUT = 10.0  # seconds until the server must answer PING
PORT_TRIES = 3  # another process may take the free port between our look and the server's bind


def missing_redis() -> str | None:
    """Why a Redis server cannot be started here (or its client used), or None."""
    if not os.access(REDIS_SERVER, os.X_OK):
        return f"{REDIS_SERVER} is missing (apt-get install -y redis-server)"
    try:
        import redis  # noqa: F401
    except ImportError:
        return "the redis package is not installed (pip install -r requirements.txt)"
    return None


def require_redis(what: str = "the Redis tests") -> None:
    """Skip the calling test when Redis cannot run here; in CI (CI=true), fail it instead."""
    import pytest
    from support import in_ci

    reason = missing_redis()
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true but {what} cannot run: {reason}", pytrace=False)
        pytest.skip(reason)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pong(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@contextlib.contextmanager
def start_redis() -> Iterator[str]:
    """Run a fresh ``redis-server`` on 127.0.0.1 for the ``with`` block; yield its URL."""
    with tempfile.TemporaryDirectory(prefix="bpelab-redis-") as folder:
        log_path = Path(folder) / "redis.log"
        for _ in range(PORT_TRIES):
            port = _free_port()
            with open(log_path, "wb") as log:
                proc = subprocess.Popen(
                    [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                     "--appendonly", "no", "--dir", folder, "--daemonize", "no"],
                    cwd=folder, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )  # fmt: skip
            try:
                deadline = time.monotonic() + START_TIMEOUT
                while not _pong(port):
                    if proc.poll() is not None or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                else:
                    yield f"redis://127.0.0.1:{port}/0"
                    return
                exited = proc.poll() is not None
            finally:
                _stop(proc)
            output = log_path.read_text("utf-8", "replace")[-5000:]
            if not (exited and "Address already in use" in output):
                break  # not a lost race for the port: another port will not help
        raise RuntimeError(f"{REDIS_SERVER} did not start on port {port} (it must answer PING "
                           f"within {START_TIMEOUT:.0f} s):\n{output}")


class RedisProcess:
    """A ``redis-server`` on a fixed loopback port that a test kills and starts again."""

    def __init__(self, folder: str, port: int):
        self.folder, self.port = folder, port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(Path(self.folder) / "redis.log", "ab")
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", self.folder, "--daemonize", "no"],
            cwd=self.folder, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while not _pong(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{REDIS_SERVER} did not start on port {self.port}:\n"
                                   + (Path(self.folder) / "redis.log").read_text("utf-8",
                                                                                  "replace"))
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL, as a crash: every key is gone (nothing is saved)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)


@contextlib.contextmanager
def restartable_redis() -> Iterator[RedisProcess]:
    """A fresh ``redis-server`` for the ``with`` block, on a port it keeps across restarts."""
    with tempfile.TemporaryDirectory(prefix="bpelab-redis-") as folder:
        server = None
        for _ in range(PORT_TRIES):
            server = RedisProcess(folder, _free_port())
            try:
                server.start()
                break
            except RuntimeError:
                server.stop()
                server = None
        if server is None:
            raise RuntimeError(f"{REDIS_SERVER} did not start (tried {PORT_TRIES} ports)")
        try:
            yield server
        finally:
            server.stop()
