"""Embedded infrastructure (NATS, Postgres) and the process supervisor behind `policypal up`."""
