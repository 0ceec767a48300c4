"""`policypal bench <name> [args]`: runs `bench/<name>.py`'s `main(argv) -> int`.

The benchmarks live beside the code in the repository (they drive the whole system, compare it with
other stacks and read the example corpora), so the dispatcher puts the repository root on the import
path and imports `bench.<name>`. `--list` reads each module's docstring without importing it (some
import heavy optional dependencies from the `bench` extra).
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "bench"
# Names the issue tracker and older docs use for a module under another name.
ALIASES = {"memory": "lean"}


def available() -> dict[str, str]:
    """Every bench module that defines `main`, with the first line of its docstring."""
    found = {}
    for path in sorted(BENCH_DIR.glob("*.py")):
        tree = ast.parse(path.read_text())
        if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
            doc = ast.get_docstring(tree) or ""
            found[path.stem] = doc.strip().splitlines()[0] if doc.strip() else ""
    return found


def print_list() -> None:
    benches = available()
    width = max(len(name) for name in benches)
    for name, line in benches.items():
        print(f"{name:<{width}}  {line}")
    for alias, target in ALIASES.items():
        print(f"{alias:<{width}}  same as `{target}`")


def run(argv: list[str]) -> int:
    """Dispatch `[name, *args]`; `--list` (or nothing) lists the benchmarks."""
    if not argv or argv[0] in ("--list", "-l", "--help", "-h"):
        print("usage: policypal bench <name> [args]   (each bench takes --help)\n")
        print_list()
        return 0 if argv else 2
    name, args = ALIASES.get(argv[0], argv[0]), argv[1:]
    if name not in available():
        print(f"policypal bench: no benchmark named {argv[0]!r}; `policypal bench --list` shows them", file=sys.stderr)
        return 2
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    module = importlib.import_module(f"bench.{name}")
    saved, sys.argv = sys.argv, [f"policypal bench {argv[0]}", *args]  # argparse's `prog` in usage and errors
    try:
        return int(module.main(args) or 0)
    finally:
        sys.argv = saved
