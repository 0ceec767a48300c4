"""NATS JetStream plumbing: subjects, streams, publishing and durable consumers."""

from shared.bus.connection import Bus, connect_bus
from shared.bus.subjects import Subjects

__all__ = ["Bus", "Subjects", "connect_bus"]
