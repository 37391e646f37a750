"""Loads a bench/ script as a module, so tests can call its functions (bench/ is not a package)."""
from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.helpers.paths import REPO

BENCH = REPO / "bench"


def load_bench(name: str) -> ModuleType:
    """bench/<name>.py as the module ``bench_<name>`` (bench/ on sys.path for its own imports)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"bench_{name}"] = module
    spec.loader.exec_module(module)
    return module
