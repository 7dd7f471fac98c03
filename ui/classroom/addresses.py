"""Addresses, for the classroom (no Streamlit here): who asks (a request's address, for the
rooms' limits, ``X-Forwarded-For`` believed only from trusted proxies), and this machine's own
network addresses (the join links a teacher on ``localhost`` is shown).
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ui.classroom.store import RoomError

# -- who asks --------------------------------------------------------------------------------------


def trusted_proxies(setting: str | None) -> tuple[Any, ...]:
    """The proxies ``BPE_LAB_TRUSTED_PROXIES`` names (addresses or networks, comma-separated),
    whose ``X-Forwarded-For`` is believed. Anything else is refused with a message.

    >>> trusted_proxies("10.0.0.5, 192.168.0.0/24")
    (IPv4Network('10.0.0.5/32'), IPv4Network('192.168.0.0/24'))
    """
    nets = []
    for part in (setting or "").split(","):
        if part.strip():
            try:
                nets.append(ipaddress.ip_network(part.strip(), strict=False))
            except ValueError:
                raise RoomError(f"BPE_LAB_TRUSTED_PROXIES: {part.strip()[:40]!r} is not an "
                                "address or a network (10.0.0.5, 10.0.0.0/24)") from None
    return tuple(nets)


def _is_in(address: str, nets: tuple[Any, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == net.version and ip in net for net in nets)


LOOPBACK = "127.0.0.1"


def client_address(peer: str | None, forwarded_for: str | None, trusted: tuple[Any, ...]) -> str:
    """The address a request counts against, for the limits on joins, answers and rooms.

    ``peer`` is the connection's address as the server saw it (None: loopback), ``forwarded_for``
    the request's ``X-Forwarded-For``. The header is believed only from a ``trusted`` proxy: from
    the right, each address a trusted proxy added is followed until one that is not a proxy.
    Anyone else who sends the header counts as themselves.

    uvicorn (under Streamlit) already replaces a loopback peer by the header's last address that
    is not loopback; so a peer that is that very address, with the header present, was a
    loopback connection, and is counted as loopback unless loopback is trusted.

    >>> client_address("203.0.113.9", "1.2.3.4", ())  # an untrusted peer: its own address
    '203.0.113.9'
    >>> proxies = trusted_proxies("10.0.0.5")
    >>> client_address("10.0.0.5", "1.2.3.4, 198.51.100.7", proxies)  # the proxy's last hop
    '198.51.100.7'
    """
    hops = [h.strip() for h in (forwarded_for or "").split(",") if h.strip()]
    seen = peer or LOOPBACK
    if hops:
        outside = [h for h in hops if not _is_in(h, LOOPBACK_NETS)]
        if seen == (outside[-1] if outside else None) or _is_in(seen, LOOPBACK_NETS):
            seen = LOOPBACK  # uvicorn put the header's address in place of a loopback peer
    address = seen
    while hops and _is_in(address, trusted):
        address = hops.pop()
    return address


LOOPBACK_NETS = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def local_addresses() -> list[str]:
    """This machine's own network addresses (IPv4, not loopback), read from its interfaces: no
    lookup leaves the machine (Linux: the SIOCGIFADDR ioctl per interface; elsewhere, the
    addresses the machine's own name has, from its hosts file or resolver)."""
    found: list[str] = []
    try:
        import fcntl

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # never connected
            for _, name in socket.if_nameindex():
                try:
                    raw = fcntl.ioctl(s.fileno(), 0x8915,  # SIOCGIFADDR
                                      struct.pack("256s", name.encode()[:15]))
                except OSError:
                    continue  # no IPv4 address on this interface
                found.append(socket.inet_ntoa(raw[20:24]))
    except (ImportError, OSError, AttributeError):
        try:
            found = [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None,
                                                               socket.AF_INET)]
        except OSError:
            found = []
    kept = []
    for address in found:
        ip = ipaddress.ip_address(address)
        if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified) and address not in kept:
            kept.append(address)
    return kept


def join_url(url: str | None, code: str) -> str:
    """The link students open: the address the teacher reached the app by (``url``), with
    ``?room=CODE``; without one, the query alone."""
    if not url:
        return f"?room={code}"
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/", f"room={code}", ""))


LOCAL_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"}


def network_urls(url: str | None, code: str, local: list[str]) -> list[str]:
    """For a teacher who opened the app as ``localhost`` (``url``): the join link on each of
    this machine's network addresses ``local`` (same port), which students' devices can open."""
    if not url:
        return []
    parts = urlsplit(url)
    if (parts.hostname or "") not in LOCAL_NAMES:
        return []
    port = f":{parts.port}" if parts.port else ""
    return [urlunsplit((parts.scheme, f"{a}{port}", "/", f"room={code}", "")) for a in local]
