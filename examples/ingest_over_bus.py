"""Ingest a file through the public bus contract with nothing but nats-py.

    python examples/ingest_over_bus.py FILE --tenant TENANT_ID --user USER_ID [--nats nats://127.0.0.1:4222]

1. put the bytes in the JetStream object store bucket `pp-uploads`,
2. publish `pp.cmd.ingest` (JSON below) with a `Nats-Msg-Id` for de-duplication,
3. follow `pp.evt.ingest.<document_id>` until the status is `ready` or `failed`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import uuid
from pathlib import Path

import nats
from nats.js.api import ConsumerConfig, DeliverPolicy


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file", type=Path)
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--title")
    parser.add_argument("--nats", default="nats://127.0.0.1:4222")
    args = parser.parse_args()

    nc = await nats.connect(args.nats)
    js = nc.jetstream()
    document_id = str(uuid.uuid4())
    object_name = f"{args.tenant}/{document_id}"
    store = await js.object_store("pp-uploads")
    await store.put(object_name, args.file.read_bytes())

    events = await js.subscribe(
        f"pp.evt.ingest.{document_id}", ordered_consumer=True, config=ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
    )
    command = {
        "schema_version": 1,
        "run_id": str(uuid.uuid4()),
        "tenant_id": args.tenant,
        "user_id": args.user,
        "issued_at": "2026-11-22T00:00:00Z",
        "object_name": object_name,
        "filename": args.file.name,
        "title": args.title or args.file.stem,
        "version": "1",
        "doc_type": "regulatory_source",
        "set_name": None,
        "visibility": "private",
        "document_id": document_id,
    }
    await js.publish("pp.cmd.ingest", json.dumps(command).encode(), headers={"Nats-Msg-Id": f"ingest:{document_id}"})
    while True:
        msg = await events.next_msg(timeout=300)
        event = json.loads(msg.data)
        print(event["status"], event["stage"], event["done"], event["total"], event.get("error") or "")
        if event["status"] in ("ready", "failed"):
            break
    await nc.drain()


if __name__ == "__main__":
    asyncio.run(main())
