"""Playwright on Debian's chromium (Playwright cannot download its own browser on these machines)."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("KOPA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# Without the background-networking flags chromium keeps dialling out and its connections are refused.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def launch_chromium(playwright):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"chromium not installed at {CHROMIUM} (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def log_in(page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("form button[type=submit]")
    page.wait_for_load_state()
