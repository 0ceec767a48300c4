"""Benchmarks (docs/architecture.md §11): each module with a `main(argv) -> int` runs as `policypal bench <name>`."""
