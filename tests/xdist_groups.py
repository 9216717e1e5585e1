"""Which tests run together in one pytest-xdist worker (``-n auto --dist loadgroup``).

Two kinds of tests are kept in one worker, one after another:

- the tests of a module that use one of its module-scoped fixtures (the browser tests' server
  and Chromium, a private Redis Cluster): the fixture is then made once, not once in every
  worker that gets one of the module's tests;
- tests marked ``@pytest.mark.xdist_group("name")`` with the same name (tests that may not
  run at the same moment as each other).

pytest-xdist's own ``loadgroup`` tells its scheduler a test's group by rewriting the test's
node id in the worker, which pytest 9.2 no longer allows (the new id is silently dropped:
pytest-dev/pytest-xdist#1386), so every group would be spread over the workers. Here each
worker writes the groups it collected to a file instead, and the scheduler (xdist's
LoadGroupScheduling, whose work units are the groups and the single tests) reads them. Groups
are handed out first (the largest first), then the other tests one by one in their order.

The hooks are imported by tests/conftest.py; they do nothing without ``--dist loadgroup``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

GROUPS_DIR = pytest.StashKey[str]()


def group_of(item: pytest.Item) -> str | None:
    """The worker group of a test, or None for a test that may run anywhere."""
    names = sorted(
        {
            str(m.args[0] if m.args else m.kwargs.get("name", "default"))
            for m in item.iter_markers("xdist_group")
        }
    )
    if names:
        return "_".join(names)
    info = getattr(item, "_fixtureinfo", None)
    if info is not None and any(
        defs[-1].scope == "module" for defs in info.name2fixturedefs.values() if defs
    ):
        return item.nodeid.split("::", 1)[0]
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Controller: tell each worker where to write the groups it collects."""
    config = node.config
    if config.getvalue("dist") != "loadgroup":
        return
    if GROUPS_DIR not in config.stash:
        config.stash[GROUPS_DIR] = tempfile.mkdtemp(prefix="hearts-xdist-groups-")
    node.workerinput["hearts_groups_dir"] = config.stash[GROUPS_DIR]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Worker: write {node id: group} for the grouped tests."""
    folder = getattr(config, "workerinput", {}).get("hearts_groups_dir")
    if not folder:
        return
    groups = {item.nodeid: group for item in items if (group := group_of(item)) is not None}
    worker = config.workerinput["workerid"]  # type: ignore[attr-defined]
    partial = Path(folder) / f"{worker}.part"
    partial.write_text(json.dumps(groups))
    partial.rename(Path(folder) / f"{worker}.json")


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Controller: xdist's LoadGroupScheduling with the groups the workers wrote."""
    if config.getvalue("dist") != "loadgroup" or GROUPS_DIR not in config.stash:
        return None
    from xdist.scheduler import LoadGroupScheduling  # type: ignore[import-untyped]

    folder = Path(config.stash[GROUPS_DIR])

    class FileGroupScheduling(LoadGroupScheduling):  # type: ignore[misc]
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                # Called once every worker has collected (and so written its file); the
                # workers collect the same tests, so any one file will do.
                written = sorted(folder.glob("*.json"))
                self.groups = json.loads(written[0].read_text()) if written else {}
            group = self.groups.get(nodeid)
            return "group:" + group if group is not None else str(super()._split_scope(nodeid))

    return FileGroupScheduling(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = session.config.stash.get(GROUPS_DIR, None)
    if folder is not None and not hasattr(session.config, "workerinput"):
        shutil.rmtree(folder, ignore_errors=True)
