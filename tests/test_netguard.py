"""The suite's own network guard (tests/netguard.py, installed by conftest.py) is real: a contact
beyond this machine fails, loopback works. The app under it: tests/browser/test_no_network.py."""

from __future__ import annotations

import socket

import netguard
import pytest


@pytest.mark.parametrize("address", [("192.0.2.1", 80), ("8.8.8.8", 1), ("2001:db8::1", 443)])
def test_a_connection_beyond_this_machine_is_refused(address):
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    before = len(netguard.BLOCKED)
    with socket.socket(family, socket.SOCK_DGRAM) as s, pytest.raises(OSError, match="blocked"):
        s.connect(address)  # a UDP connect sends nothing, yet it is how Streamlit finds its IP
    assert netguard.BLOCKED[before:] == [f"connect to {address!r}"]


def test_a_name_lookup_beyond_this_machine_is_refused():
    with pytest.raises(OSError, match="blocked"):
        socket.getaddrinfo("checkip.amazonaws.com", 80)
    with pytest.raises(OSError, match="blocked"):
        socket.create_connection(("example.org", 80), timeout=1)


def test_loopback_still_works():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("localhost", port), timeout=2) as client:
            peer, _ = server.accept()
            with peer:
                client.sendall(b"ping")
                assert peer.recv(4) == b"ping"
