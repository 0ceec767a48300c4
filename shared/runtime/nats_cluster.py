"""An embedded NATS JetStream cluster: N `nats-server` processes on loopback forming one cluster.

`policypal up --nats-cluster 3` runs what `deploy/nats/` and the Helm chart run, on one machine,
so losing a node can be exercised here (tests/e2e/test_cluster_faults.py, bench/chaos.py). Each
node's config is rendered in the same shape as `deploy/nats/nats-N.conf`; only the addresses and
the store directory differ. `nodes.json` next to the configs tells a fault injector which process
is which node.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

from shared.runtime.embedded import free_ports, nats_server_binary, port_is_open

CLUSTER_NAME = "pp"
NODES_FILE = "nodes.json"


@dataclass
class ClusterNode:
    """One server of the cluster; the ports stay fixed across restarts so seeds and routes hold."""

    name: str
    client_port: int
    cluster_port: int
    http_port: int
    config: str
    pid: int = 0

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.client_port}"


def render_config(node: ClusterNode, peers: list[ClusterNode], store_dir: Path) -> str:
    """The config of one node, in the layout of deploy/nats/nats-N.conf."""
    routes = "\n".join(f"    nats-route://127.0.0.1:{peer.cluster_port}" for peer in peers)
    return f"""# NATS server {node.name} of the embedded {len(peers)}-node JetStream cluster "{CLUSTER_NAME}".
# Rendered by shared/runtime/nats_cluster.py in the shape of deploy/nats/{node.name}.conf.

server_name: {node.name}
listen: 127.0.0.1:{node.client_port}
http: 127.0.0.1:{node.http_port}

jetstream {{
  store_dir: "{store_dir}"
  max_memory_store: 256MB
  max_file_store: 10GB
}}

cluster {{
  name: {CLUSTER_NAME}
  listen: 127.0.0.1:{node.cluster_port}
  routes: [
{routes}
  ]
}}
"""


@dataclass
class EmbeddedCluster:
    """The running cluster: a comma-separated seed list for clients, one process per node."""

    base_dir: Path
    nodes: list[ClusterNode]
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return ",".join(node.url for node in self.nodes)

    def node(self, name: str) -> ClusterNode:
        return next(node for node in self.nodes if node.name == name)

    def start_node(self, name: str) -> None:
        node = self.node(name)
        logfile = open(self.base_dir / f"{name}.log", "ab")  # noqa: SIM115 - owned by the child process
        process = subprocess.Popen(
            [nats_server_binary(), "-c", node.config],
            stdout=logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        logfile.close()
        self.processes[name] = process
        node.pid = process.pid
        self.write_nodes()

    def write_nodes(self) -> None:
        (self.base_dir / NODES_FILE).write_text(json.dumps([asdict(node) for node in self.nodes], indent=2))

    def wait_healthy(self, timeout_s: float = 30.0) -> None:
        """Until every node, in one pass, accepts clients and reports JetStream current.

        One pass, not node by node: a node that was healthy can fall behind while another catches up
        (streams and consumers created meanwhile are replicated on all of them)."""
        deadline = time.monotonic() + timeout_s
        while unhealthy := self.unhealthy():
            for name in unhealthy:
                process = self.processes.get(name)
                if process is not None and process.poll() is not None:
                    raise RuntimeError(f"{name} exited with {process.returncode}; see {self.base_dir}")
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"NATS cluster not healthy within {timeout_s:.0f}s ({unhealthy}); see {self.base_dir}"
                )
            time.sleep(0.1)

    def unhealthy(self) -> dict[str, str]:
        """Each node that is not healthy now, with why."""
        reasons = {node.name: node_health(node) for node in self.nodes}
        return {name: reason for name, reason in reasons.items() if reason is not None}

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


def node_healthy(node: ClusterNode) -> bool:
    """The server's own /healthz: 200 once JetStream is up and in contact with the meta leader."""
    return node_health(node) is None


def node_health(node: ClusterNode) -> str | None:
    """None when the node is healthy, else why not: its /healthz answer, or what stopped the call."""
    if not port_is_open("127.0.0.1", node.client_port):
        return "client port closed"
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{node.http_port}/healthz", timeout=5) as response:
            return None if response.status == 200 else f"/healthz {response.status}"
    except urllib.error.HTTPError as exc:
        return f"/healthz {exc.code}: {exc.read().decode(errors='replace')[:200]}"
    except OSError as exc:
        return f"/healthz unreachable: {exc}"


def load_nodes(base_dir: Path) -> list[ClusterNode]:
    """The nodes `up` wrote, for a fault injector in another process."""
    return [ClusterNode(**item) for item in json.loads((base_dir / NODES_FILE).read_text())]


def start_cluster(base_dir: Path, size: int = 3) -> EmbeddedCluster:
    """Render the configs on fresh loopback ports, start every node, wait for the cluster."""
    if size < 3:
        raise ValueError("a JetStream cluster needs at least 3 nodes to keep a quorum when one is lost")
    base_dir.mkdir(parents=True, exist_ok=True)
    ports = iter(free_ports(3 * size))
    nodes = [
        ClusterNode(
            name=f"nats-{i}",
            client_port=next(ports),
            cluster_port=next(ports),
            http_port=next(ports),
            config=str(base_dir / f"nats-{i}.conf"),
        )
        for i in range(1, size + 1)
    ]
    for node in nodes:
        Path(node.config).write_text(render_config(node, nodes, base_dir / node.name))
    cluster = EmbeddedCluster(base_dir=base_dir, nodes=nodes)
    try:
        for node in nodes:
            cluster.start_node(node.name)
        cluster.wait_healthy(timeout_s=60.0)
    except BaseException:
        cluster.stop()
        raise
    return cluster
