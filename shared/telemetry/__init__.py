"""Trace context propagation and structured logging shared by every process."""
