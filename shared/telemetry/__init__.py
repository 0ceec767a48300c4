"""Trace context propagation, OpenTelemetry setup and structured logging shared by every process."""
