"""`policypal up` gives every process its own loopback port.

CI once saw the resolver and the ingest worker handed the same health port: ports asked for one at
a time may repeat, and the resolver crash-looped on "address already in use" until the test's turn
timed out.
"""

from __future__ import annotations

import socket

from policypal.cli import up_children
from shared.runtime.embedded import free_ports


def test_ports_chosen_together_are_distinct_and_free():
    ports = free_ports(64)
    assert len(set(ports)) == 64
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", port))


def test_a_port_to_avoid_is_never_chosen():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        taken = sock.getsockname()[1]
    assert taken not in free_ports(64, avoid={taken})


def test_every_worker_of_up_has_its_own_health_port_apart_from_the_gateway():
    gateway_port = free_ports(1)[0]
    children = up_children(gateway_port)
    ports = [c.health_port for c in children if c.health_port]
    assert len(ports) == len(children) - 1 == len(set(ports))
    assert gateway_port not in ports
