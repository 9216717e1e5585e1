"""Lighthouse on the lobby and on a table, at phone and desktop settings.

    python -m bench.lighthouse                      # installs npm's lighthouse if none is found
    python -m bench.lighthouse --tables 50 --runs 3 --lighthouse /path/to/bin/lighthouse
    python -m bench.lighthouse --lang en --lang de      # each page in English, then in German

Starts a server (``python -m app``, embedded defaults: SQLite in a temporary directory, the
in-process Redis stand-in) on a free port, fills the lobby with public tables (guests creating
them over HTTP, some with computers), and opens one table whose game is under way: its host
(seat 0) with three Standard computers, started over the table's socket, so the page shows the
host's hand in the passing phase. Then it runs Lighthouse (npm's ``lighthouse``, driving the
system's Chromium: ``CHROME_PATH``, /usr/bin/chromium by default, headless, no sandbox) on

- the lobby (``/``), as a new visitor;
- the table (``/?table=ID``), as its host (the session cookie passed as a request header);

once with Lighthouse's phone settings (its default: a mid-range phone, simulated slow 4G and a
4x slower CPU) and once with ``--preset=desktop``, and prints the four scores (performance,
accessibility, best practices, SEO) and the main metrics (FCP, LCP, TBT, CLS, Speed Index) of
each, the median of ``--runs`` runs, in each ``--lang`` (English by default; another language
through the ``hearts_lang`` cookie the site's language switch sets, added to the request's
Cookie header, so the page and its catalogs are that language's). Lighthouse comes from
``--lighthouse``, ``$LIGHTHOUSE``, ``lighthouse`` on the PATH, or else ``npm install
--prefix ~/.cache/hearts-online/lighthouse lighthouse`` (once). Figures belong in
docs/frontend.md, not in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from bench.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
NPM_PREFIX = Path.home() / ".cache" / "hearts-online" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = (
    ("first-contentful-paint", "FCP", "ms"),
    ("largest-contentful-paint", "LCP", "ms"),
    ("total-blocking-time", "TBT", "ms"),
    ("cumulative-layout-shift", "CLS", ""),
    ("speed-index", "SI", "ms"),
)
PRESETS = ["classic", "two-player-dummy", "classic-3", "double-hearts", "omnibus"]


def find_lighthouse(given: str | None) -> list[str]:
    """The command that runs Lighthouse, installing it with npm when none is found."""
    for candidate in (given, os.environ.get("LIGHTHOUSE"), shutil.which("lighthouse")):
        if candidate:
            return [candidate]
    local = NPM_PREFIX / "node_modules" / ".bin" / "lighthouse"
    if not local.exists():
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("no lighthouse and no npm to install it: apt-get install npm, or --lighthouse")
        print(f"installing lighthouse with npm into {NPM_PREFIX} ...", file=sys.stderr)
        NPM_PREFIX.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "install", "--prefix", str(NPM_PREFIX), "lighthouse"], check=True)
    return [str(local)]


def start_server(data_dir: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEARTS_")}
    env.update(
        {
            "HEARTS_HOST": "127.0.0.1",
            "HEARTS_PORT": str(port),
            "HEARTS_DATABASE_URL": f"sqlite:///{data_dir}/lighthouse.sqlite3",
            "HEARTS_REDIS_URL": "memory://",
            "HEARTS_LOG_LEVEL": "warning",
            "HEARTS_SECRET_KEY": "lighthouse-" + uuid.uuid4().hex,
            "HEARTS_MAX_TABLES_PER_HOST": "10",
            "HEARTS_MAX_TABLES_PER_ADDRESS": "1000",
            "HEARTS_MAX_GUESTS_PER_ADDRESS": "0",
        }
    )
    log = open(Path(data_dir) / "server.log", "wb")  # noqa: SIM115 - the server's lifetime
    proc = subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    sys.exit("the server did not start: " + (Path(data_dir) / "server.log").read_text()[-2000:])


def guest(client: httpx.Client, name: str) -> str:
    reply = client.post("/api/guest", json={"name": name})
    reply.raise_for_status()
    client.cookies.clear()
    return str(reply.json()["token"])


def fill_lobby(url: str, tables: int) -> None:
    with httpx.Client(base_url=url, timeout=10) as client:
        for i in range(tables):
            if i % 10 == 0:
                bearer = {"Authorization": f"Bearer {guest(client, f'Host {i // 10 + 1}')}"}
            body = {
                "preset": PRESETS[i % len(PRESETS)],
                "bots": {"1": "easy"} if i % 3 == 0 else {},
                "turn_timer": 30 * (i % 2),
            }
            client.post("/api/tables", json=body, headers=bearer).raise_for_status()


def table_in_play(url: str) -> tuple[str, str]:
    """A table whose game is under way (its host and three computers, passing): its id and
    the host's session token."""
    from websockets.sync.client import connect

    with httpx.Client(base_url=url, timeout=10) as client:
        token = guest(client, "Alex")
        made = client.post(
            "/api/tables",
            json={
                "preset": "classic",
                "private": True,
                "bots": {"1": "standard", "2": "standard", "3": "standard"},
            },
            headers={"Authorization": f"Bearer {token}"},
        )
        made.raise_for_status()
        table_id = str(made.json()["table"]["id"])
    ws_url = url.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "start", "id": "lighthouse-start"}))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            message = json.loads(ws.recv(timeout=10))
            if message.get("type") == "error":
                sys.exit(f"the table did not start: {message}")
            if (
                message.get("type") == "state"
                and (message.get("table") or {}).get("status") == "playing"
            ):
                break
    return table_id, token


def run_lighthouse(
    command: list[str], url: str, desktop: bool, headers: dict[str, str], out_dir: str
) -> dict[str, Any]:
    out = Path(out_dir) / f"report-{uuid.uuid4().hex[:8]}.json"
    args = [
        *command,
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        "--only-categories=" + ",".join(CATEGORIES),
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        "--max-wait-for-load=30000",
    ]
    if desktop:
        args.append("--preset=desktop")
    if headers:
        args.append("--extra-headers=" + json.dumps(headers))
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    for attempt in range(3):
        # Lighthouse now and then loses its trace (NO_NAVSTART, NO_FCP): tried again.
        done = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode == 0 and out.exists():
            report: dict[str, Any] = json.loads(out.read_text())
            if not report.get("runtimeError"):
                return report
        print(f"lighthouse failed (attempt {attempt + 1}): {done.stderr[-500:]!r}", file=sys.stderr)
    sys.exit(f"lighthouse failed three times on {url}")


def summary(reports: list[dict[str, Any]]) -> dict[str, float]:
    """The median over runs of each score (0-100) and metric."""
    row: dict[str, float] = {}
    for category in CATEGORIES:
        scores = [r["categories"][category]["score"] or 0.0 for r in reports]
        row[category] = round(statistics.median(scores) * 100)
    for audit, name, _ in METRICS:
        row[name] = statistics.median(r["audits"][audit]["numericValue"] for r in reports)
    return row


def failing_audits(report: dict[str, Any]) -> list[str]:
    """The audits of the accessibility category (and a few others) that did not pass."""
    out = []
    for category in ("accessibility", "best-practices", "seo"):
        for ref in report["categories"][category]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref.get("weight", 0) > 0 and audit.get("score") is not None and audit["score"] < 1:
                out.append(f"{category}: {ref['id']} ({audit.get('title', '')})")
    return out


def with_language(headers: dict[str, str], lang: str) -> dict[str, str]:
    """The request headers with the language cookie added (none for English: a new visitor)."""
    if lang == "en":
        return headers
    cookie = "; ".join(c for c in (headers.get("Cookie"), f"hearts_lang={lang}") if c)
    return {**headers, "Cookie": cookie}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="public tables in the lobby")
    parser.add_argument("--runs", type=int, default=1, help="runs per page and setting (median)")
    parser.add_argument("--lighthouse", help="the lighthouse command (else found or installed)")
    parser.add_argument("--keep", help="keep the JSON reports in this directory")
    parser.add_argument(
        "--lang",
        action="append",
        choices=["en", "fr", "de", "es", "nl"],
        help="the pages' language (repeat for several; English by default)",
    )
    args = parser.parse_args()
    command = find_lighthouse(args.lighthouse)
    data_dir = tempfile.mkdtemp(prefix="hearts-lighthouse-")
    out_dir = args.keep or data_dir
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    proc, url = start_server(data_dir)
    try:
        fill_lobby(url, args.tables)
        table_id, token = table_in_play(url)
        pages = [
            ("lobby", f"{url}/", {}),
            ("table", f"{url}/?table={table_id}", {"Cookie": f"hearts_token={token}"}),
        ]
        print(f"Lighthouse, {args.runs} run(s) each, lobby with {args.tables} public tables")
        header = ["lang", "page", "setting", "perf", "a11y", "best", "seo"]
        header += [m[1] for m in METRICS]
        print(" ".join(f"{h:>8}" for h in header))
        for lang, (name, page_url, page_headers), desktop in (
            (lang, page, desktop)
            for lang in args.lang or ["en"]
            for page in pages
            for desktop in (False, True)
        ):
            headers = with_language(page_headers, lang)
            reports = [
                run_lighthouse(command, page_url, desktop, headers, out_dir)
                for _ in range(args.runs)
            ]
            row = summary(reports)
            cells = [lang, name, "desktop" if desktop else "phone"]
            cells += [str(row[c]) for c in CATEGORIES]
            for _, metric, unit in METRICS:
                cells.append(f"{row[metric]:.0f}" if unit else f"{row[metric]:.3f}")
            print(" ".join(f"{c:>8}" for c in cells), flush=True)
            for line in failing_audits(reports[0]):
                print(f"{'':>17}not passed: {line}")
    finally:
        # Stopped as any started server is (terminate, then kill): a bench script imports no test
        # helper.
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
