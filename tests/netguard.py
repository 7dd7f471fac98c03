"""A guard that refuses every network contact beyond this machine, and remembers each attempt.

``install()`` wraps the ways a Python process reaches another host: ``socket.connect`` (and
``connect_ex``, ``sendto``), and name lookups (``getaddrinfo``, ``gethostbyname``), which libc
would otherwise send to a DNS server without passing through a Python socket. Loopback addresses
(127.0.0.0/8, ::1, ``localhost``) and Unix sockets pass; anything else raises ``OSError`` and is
written, one line each, as ``NETGUARD blocked <what>`` to stderr, and kept in ``BLOCKED``.

The test suite installs it in its own process (conftest.py), and the no-network test runs
``streamlit run app.py`` under it (``python tests/netguard.py streamlit run app.py ...``).
"""

from __future__ import annotations

import ipaddress
import socket
import sys

BLOCKED: list[str] = []
MARK = "NETGUARD blocked"

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""}


def is_local(host: object) -> bool:
    """True for a loopback address or name (or no host at all, e.g. a bind to every interface)."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    host = host.strip("[]").split("%")[0].lower()
    if host in _LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _refuse(what: str) -> OSError:
    BLOCKED.append(what)
    print(f"{MARK} {what}", file=sys.stderr, flush=True)
    return OSError(f"network access beyond this machine is blocked in the tests: {what}")


def _allowed(address: object) -> bool:
    if isinstance(address, (str, bytes)):  # a Unix socket path
        return True
    return isinstance(address, tuple) and bool(address) and is_local(address[0])


def install() -> None:
    """Refuse non-local contacts from now on in this process (idempotent)."""
    if getattr(socket, "_netguard_installed", False):
        return
    sock = socket.socket
    connect, connect_ex, sendto = sock.connect, sock.connect_ex, sock.sendto
    getaddrinfo, gethostbyname = socket.getaddrinfo, socket.gethostbyname

    def guarded_connect(self, address):
        if not _allowed(address):
            raise _refuse(f"connect to {address!r}")
        return connect(self, address)

    def guarded_connect_ex(self, address):
        if not _allowed(address):
            raise _refuse(f"connect to {address!r}")
        return connect_ex(self, address)

    def guarded_sendto(self, data, *args):
        address = args[-1]
        if not _allowed(address):
            raise _refuse(f"sendto {address!r}")
        return sendto(self, data, *args)

    def guarded_getaddrinfo(host, *args, **kwargs):
        if not is_local(host):
            raise _refuse(f"name lookup of {host!r}")
        return getaddrinfo(host, *args, **kwargs)

    def guarded_gethostbyname(host):
        if not is_local(host):
            raise _refuse(f"name lookup of {host!r}")
        return gethostbyname(host)

    sock.connect, sock.connect_ex, sock.sendto = guarded_connect, guarded_connect_ex, guarded_sendto
    socket.getaddrinfo, socket.gethostbyname = guarded_getaddrinfo, guarded_gethostbyname
    socket._netguard_installed = True


if __name__ == "__main__":  # python tests/netguard.py streamlit run app.py [options]
    import runpy

    install()
    sys.argv = sys.argv[1:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
