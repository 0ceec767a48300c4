"""A real browser for the UI tests: Debian's Chromium driven by Playwright for Python.

Playwright's own browser download is unreachable here, so tests launch the system Chromium
(`apt-get install -y chromium`, done by `.ci/run`). Every page records console errors and uncaught
exceptions so a test can assert a screen ran cleanly; `screenshot` writes PNGs to
PP_SCREENSHOT_DIR (default `build/screenshots`) for people to look at.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, Playwright

CHROMIUM = os.environ.get("PP_CHROMIUM", "/usr/bin/chromium")
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
SCREENSHOTS = Path(os.environ.get("PP_SCREENSHOT_DIR", Path(__file__).resolve().parents[2] / "build" / "screenshots"))

# Without the background-networking switches Chromium keeps dialling Google hosts that this
# network refuses; none of these change how pages render.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def launch(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


@dataclass
class PageLog:
    """What a page said while a test drove it."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))

        def on_dialog(dialog) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)


def new_context(browser: Browser, **kwargs) -> BrowserContext:
    return browser.new_context(viewport={"width": 1440, "height": 900}, **kwargs)


def screenshot(page: Page, name: str, full_page: bool = False) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def axe_violations(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[dict]:
    """Run axe-core in the page; returns the violations at the given impacts (id, impact, nodes).

    axe is injected with `add_script_tag(content=…)`, which the page's CSP would refuse as inline
    script, so the test context must be created with `bypass_csp=True` for this check.
    """
    page.add_script_tag(content=AXE.read_text())
    result = page.evaluate("async () => JSON.stringify((await axe.run(document)).violations)")
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]]}
        for v in json.loads(result)
        if v["impact"] in impacts
    ]
