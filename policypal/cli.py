"""The `policypal` command: up, gateway, worker, migrate, token, ingest, asyncapi."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import logging
import os
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from policypal import bench
from shared.actions import action_names
from shared.auth.tokens import ROLES
from shared.config import Settings, get_settings

if TYPE_CHECKING:
    from shared.runtime.platform import Platform
    from shared.runtime.supervisor import Supervisor

WORKER_KINDS = ("embedder", "ingest", "resolver", "retrieval", "action")


NO_DATABASE = "no database: start `policypal up` (embedded) or set PP_DATABASE_ADMIN_URL / PP_DATABASE_URL"


def cli_settings() -> Settings:
    """Settings for one-shot commands: configured URLs, else those of the `up` running on this data dir."""
    from shared.runtime.endpoints import with_running_platform

    return with_running_platform(get_settings())


def cmd_up(args: argparse.Namespace) -> int:
    from policypal.sample import seed_sample_document
    from shared.db.tenants import ensure_tenant
    from shared.runtime.endpoints import Endpoints, publish_endpoints, with_running_platform, withdraw_endpoints
    from shared.runtime.platform import start_platform
    from shared.runtime.supervisor import Supervisor
    from shared.telemetry.logging import configure_logging

    settings = get_settings()
    if 0 < args.nats_cluster < 3:
        print("--nats-cluster needs at least 3 nodes (a quorum must survive losing one)", file=sys.stderr)
        return 2
    configure_logging("up", settings.log_level)
    started = time.monotonic()
    data_dir = settings.data_dir.resolve()
    settings.ensure_secret_file()
    platform = start_platform(settings, data_dir, nats_cluster=args.nats_cluster)
    endpoints = Endpoints(
        nats_url=platform.nats_url, database_url=platform.database_url, database_admin_url=platform.database_admin_url
    )
    publish_endpoints(data_dir, endpoints)
    try:
        asyncio.run(
            ensure_tenant(
                platform.database_admin_url,
                settings.demo_tenant_id,
                "Demo tenant",
                settings.demo_user_id,
                settings.demo_user_name,
            )
        )
        env = {**os.environ, **platform.env(), "PP_DATA_DIR": str(data_dir)}
        supervisor = Supervisor(up_children(settings.port), env, data_dir / "logs", data_dir / "health.json")
        supervisor.start_all()
        url = f"http://{settings.host}:{settings.port}"
        if not system_ready(url, supervisor, data_dir, platform):
            supervisor.stop_all()
            return 1
        announce(settings, url, data_dir, ", ".join(platform.started) or "external", started)
        try:
            seeded = asyncio.run(seed_sample_document(with_running_platform(settings)))
        except Exception:  # a courtesy for newcomers: the system runs without it
            logging.getLogger("policypal.up").exception("could not add the sample document")
            seeded = None
        if seeded:
            print(seeded, flush=True)
        try:
            stop = _stop_flag()
            while not stop():
                platform.revive()
                supervisor.poll()
                time.sleep(0.5)
        finally:
            print("stopping...", flush=True)
            supervisor.stop_all()
    finally:
        withdraw_endpoints(data_dir)
        platform.stop()
    return 0


def system_ready(url: str, supervisor: Supervisor, data_dir: Path, platform: Platform) -> bool:
    """The gateway answers /readyz, every worker reports ready and a clustered bus is healthy on every
    node; what is not ready is named."""
    if not wait_ready(f"{url}/readyz", supervisor, timeout_s=120):
        print(f"gateway did not become ready; see {data_dir / 'logs'}", file=sys.stderr)
        return False
    waiting = wait_workers(supervisor, timeout_s=300)
    if waiting:
        print(f"not ready: {', '.join(waiting)}; see {data_dir / 'logs'}", file=sys.stderr)
        return False
    unhealthy = platform.wait_bus_healthy()
    if unhealthy:
        print(unhealthy, file=sys.stderr)
        return False
    return True


def announce(settings: Settings, url: str, data_dir: Path, infrastructure: str, started: float) -> None:
    """Where the system runs, and a demo token to try it with at once."""
    from shared.auth.tokens import mint_token

    token = mint_token(
        settings.jwt_secret(),
        tenant_id=settings.demo_tenant_id,
        sub=settings.demo_user_id,
        ttl_s=settings.token_ttl_s,
    )
    print(f"PolicyPal is up in {time.monotonic() - started:.1f}s at {url}", flush=True)
    print(f"  infrastructure: {infrastructure} · data in {data_dir} · logs in {data_dir / 'logs'}")
    print(f"  demo token (tenant {settings.demo_tenant_id}, user {settings.demo_user_id}):")
    print(f"export PP_TOKEN={token}", flush=True)
    print(f"  open the workspace, signed in as the demo user: {url}/#token={token}", flush=True)
    print(f"  or sign in / create an account: {url}/signin", flush=True)


def up_children(gateway_port: int) -> list:
    """The gateway (on `gateway_port`) and one process per worker kind and action; each worker gets
    its own health port (the supervisor lists them in `<data_dir>/health.json`)."""
    from shared.runtime.embedded import free_ports
    from shared.runtime.supervisor import Child

    exe = [sys.executable, "-m", "policypal.cli"]
    workers = [(kind, [*exe, "worker", kind]) for kind in ("embedder", "ingest", "resolver", "retrieval")]
    workers += [(f"action-{a}", [*exe, "worker", "action", "--action", a]) for a in action_names()]
    ports = free_ports(len(workers), avoid={gateway_port})
    children = [Child("gateway", [*exe, "gateway"])]
    children += [Child(name, argv, health_port=port) for (name, argv), port in zip(workers, ports, strict=True)]
    return children


def _stop_flag() -> Callable[[], bool]:
    import signal

    flag = {"stop": False}

    def handler(*_: object) -> None:
        flag["stop"] = True

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return lambda: flag["stop"]


def wait_ready(url: str, supervisor: Supervisor, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        supervisor.poll()
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except Exception:
            pass
        time.sleep(0.3)
    return False


def wait_workers(supervisor: Supervisor, timeout_s: float) -> list[str]:
    """Until every worker's /readyz answers 200 (connected, consuming; the embedding service has
    loaded its model, which the first start ever also exports), so a turn right after `up` never
    meets a missing service. Returns the workers still not ready when time ran out."""
    deadline = time.monotonic() + timeout_s
    while waiting := supervisor.not_ready():
        if time.monotonic() > deadline:
            return waiting
        supervisor.poll()
        time.sleep(0.3)
    return []


def without_onnxruntime() -> None:
    """Keep ONNX Runtime out of a process that embeds over the bus.

    PyMuPDF 2 imports pymupdf4llm and its ONNX layout/OCR helpers whenever onnxruntime is
    importable (it is, for the embedding service); nothing here calls them. Blocking the import
    saves ~25 MB in the gateway and the ingest worker, as before onnxruntime was installed.
    """
    # None in sys.modules is the documented way to make an import fail; typeshed types the values as modules only.
    sys.modules.setdefault("onnxruntime", None)  # type: ignore[arg-type]


def cmd_gateway(args: argparse.Namespace) -> int:
    without_onnxruntime()
    from services.gateway.app import main

    main()
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    if args.kind == "action":
        from services.actions.worker import main as action_main

        if not args.action:
            print("worker action needs --action NAME", file=sys.stderr)
            return 2
        action_main(args.action)
        return 0
    if args.kind != "embedder":
        without_onnxruntime()
    module = {
        "embedder": "services.embedder.worker",
        "ingest": "services.ingest.worker",
        "resolver": "services.resolver.worker",
        "retrieval": "services.retrieval.worker",
    }[args.kind]
    __import__(module, fromlist=["main"]).main()
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from shared.db.migrate import apply_migrations

    applied = asyncio.run(apply_migrations(cli_settings()))
    print("applied: " + (", ".join(applied) if applied else "nothing (up to date)"))
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    """Mint a JWT for a registered tenant: a token for a tenant that does not exist would be refused
    by nothing and serve nobody, so an unknown tenant is an error unless `--create` registers it."""
    from shared.auth.tokens import mint_token
    from shared.db.audit import record_as_owner
    from shared.db.tenants import ensure_tenant, tenant_exists

    settings = cli_settings()
    if not settings.admin_url:
        print(NO_DATABASE, file=sys.stderr)
        return 2
    if args.create:
        asyncio.run(ensure_tenant(settings.admin_url, args.tenant, args.create))
    elif not asyncio.run(tenant_exists(settings.admin_url, args.tenant)):
        print(f"tenant {args.tenant} is not registered (add --create NAME to register it)", file=sys.stderr)
        return 2
    ttl_s = args.ttl or settings.token_ttl_s
    detail = {"sub": args.user, "role": args.role, "ttl_s": ttl_s}
    asyncio.run(
        record_as_owner(settings.admin_url, args.tenant, f"cli:{getpass.getuser()}", "token.mint", args.user, detail)
    )
    print(
        mint_token(
            settings.jwt_secret(),
            tenant_id=args.tenant,
            sub=args.user,
            role=args.role,
            ttl_s=ttl_s,
        )
    )
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    """Submit files through the public bus contract (object store + `pp.cmd.ingest`)."""
    from policypal.sample import submit_file

    settings = cli_settings()

    async def submit() -> None:
        for path in map(Path, args.files):
            document_id, progress = await submit_file(
                settings,
                args.tenant,
                args.user,
                path,
                title=args.title or path.stem,
                version=args.version,
                doc_type=args.doc_type,
            )
            print(f"{path}: queued as document {document_id} (progress on {progress})")

    asyncio.run(submit())
    return 0


def cmd_tenant(args: argparse.Namespace) -> int:
    """Register a tenant (and optionally a user) with the owner connection."""
    from shared.db.tenants import ensure_tenant

    settings = cli_settings()
    if not settings.admin_url:
        print(NO_DATABASE, file=sys.stderr)
        return 2
    asyncio.run(ensure_tenant(settings.admin_url, args.id, args.name, args.user))
    print(f"tenant {args.id} ready" + (f" with user {args.user}" if args.user else ""))
    return 0


def cmd_asyncapi(args: argparse.Namespace) -> int:
    from policypal.asyncapi import asyncapi_document, asyncapi_yaml

    settings = get_settings()
    print(asyncapi_yaml(settings) if args.yaml else json.dumps(asyncapi_document(settings), indent=2), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="policypal", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start everything (embedded NATS/Postgres unless PP_NATS_URL/PP_DATABASE_URL)")
    up.add_argument(
        "--nats-cluster",
        type=int,
        default=0,
        metavar="N",
        help="run N (≥3) clustered NATS servers on loopback, streams replicated N times, instead of one",
    )
    up.set_defaults(fn=cmd_up)
    sub.add_parser("gateway", help="run the HTTP gateway").set_defaults(fn=cmd_gateway)
    worker = sub.add_parser("worker", help="run one worker process")
    worker.add_argument("kind", choices=WORKER_KINDS)
    worker.add_argument("--action", choices=action_names())
    worker.set_defaults(fn=cmd_worker)
    sub.add_parser("migrate", help="apply database migrations").set_defaults(fn=cmd_migrate)
    token = sub.add_parser("token", help="mint a JWT")
    token.add_argument("--tenant", default=settings.demo_tenant_id)
    token.add_argument("--user", default=settings.demo_user_id)
    token.add_argument("--role", default="user", choices=ROLES)
    token.add_argument("--create", metavar="NAME", help="register the tenant under this name if it is missing")
    token.add_argument("--ttl", type=int, default=None, help="seconds")
    token.set_defaults(fn=cmd_token)
    tenant = sub.add_parser("tenant", help="register a tenant (and a user) in the database")
    tenant.add_argument("--id", default=str(uuid.uuid4()))
    tenant.add_argument("--name", required=True)
    tenant.add_argument("--user")
    tenant.set_defaults(fn=cmd_tenant)
    ingest = sub.add_parser("ingest", help="submit files over the bus contract")
    ingest.add_argument("files", nargs="+")
    ingest.add_argument("--tenant", default=settings.demo_tenant_id)
    ingest.add_argument("--user", default=settings.demo_user_id)
    ingest.add_argument("--title")
    ingest.add_argument("--version", default="1")
    ingest.add_argument(
        "--doc-type", default="regulatory_source", choices=["company_policy", "regulatory_source", "knowledge_base"]
    )
    ingest.set_defaults(fn=cmd_ingest)
    sub.add_parser("bench", help="run a benchmark: policypal bench <name> [args] (--list shows them)")
    asyncapi = sub.add_parser("asyncapi", help="print the AsyncAPI 3 document of the bus (JSON)")
    asyncapi.add_argument("--yaml", action="store_true", help="as YAML (docs/asyncapi.yaml)")
    asyncapi.set_defaults(fn=cmd_asyncapi)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:  # its arguments belong to the benchmark, not to this parser
        return bench.run(argv[1:])
    logging.basicConfig(level=logging.INFO)
    args = build_parser().parse_args(argv)
    return args.fn(args) or 0


if __name__ == "__main__":
    sys.exit(main())
