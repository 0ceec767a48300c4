"""Imported at start-up by every Python process whose PYTHONPATH names this folder (the children
of an e2e `up`): on SIGUSR1, a process writes its argv and the modules it has loaded (a None entry
in `sys.modules` blocks an import, it is not a module) to `$PP_TEST_MODULES_DIR/<pid>.json`, so a
test can prove which processes never imported torch."""

import json
import os
import signal
import sys


def _write_modules(*_: object) -> None:
    folder = os.environ.get("PP_TEST_MODULES_DIR")
    if folder:
        with open(os.path.join(folder, f"{os.getpid()}.json"), "w") as fh:
            loaded = sorted(name for name, module in sys.modules.items() if module is not None)
            json.dump({"argv": sys.argv, "modules": loaded}, fh)


signal.signal(signal.SIGUSR1, _write_modules)
