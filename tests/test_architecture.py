"""The dependency rules of docs/architecture.md, read from every module's imports (ast, no import).

- No import cycle between our modules. Every import that runs counts, also one
  inside a function (it runs when the function does, and a cycle hidden that
  way is still two modules that need each other); only imports under
  ``if TYPE_CHECKING:`` are left out, as they never run. A package's
  ``__init__`` counts as a module; the parent packages Python imports on the
  way to a submodule are not edges (that would make every package a cycle
  with its own submodules).
- Dependencies run one way: `engine` imports none of `vision`, `robot`,
  `calibration`, `kiosk` (and nothing outside the standard library: `pip
  install .` installs it with no dependencies); `vision`, `robot` and
  `calibration` never import `kiosk`.
- The engine does no I/O except its command-line modules: elsewhere in it no
  module imports a file, process, network or logging module, nor calls
  ``open``, ``print`` or ``input``.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

PACKAGES = ("engine", "vision", "robot", "calibration", "kiosk")
MAY_IMPORT = {
    "engine": {"engine"},
    "vision": {"engine", "vision", "robot", "calibration"},
    "robot": {"engine", "vision", "robot", "calibration"},
    "calibration": {"engine", "vision", "robot", "calibration"},
    "kiosk": set(PACKAGES),
}
ENGINE_CLI = {"engine.__main__", "engine.cli", "engine.cli_args", "engine.cli_explain", "engine.cli_search",
              "engine.otep"}
IO_MODULES = {"os", "sys", "io", "pathlib", "shutil", "glob", "tempfile", "subprocess", "socket", "select",
              "selectors", "signal", "fcntl", "termios", "pty", "logging", "sqlite3", "urllib", "http", "serial",
              "mmap", "multiprocessing"}
IO_BUILTINS = {"open", "print", "input"}


@dataclass(frozen=True)
class Import:
    module: str          # the importing module
    target: str          # what it imports: one of our modules, or an outside top-level name
    line: int


def find_modules(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the packages under ``root``."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_nodes(tree: ast.AST):
    """Every node that can run, skipping the bodies of ``if TYPE_CHECKING:`` (their else runs)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """What ``name`` imports at run time: our modules by full name, others by their top-level name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Import] = []

    def add(target: str, line: int) -> None:
        if target in modules:
            found.append(Import(name, target, line))
        elif target.split(".")[0] not in PACKAGES:
            found.append(Import(name, target.split(".")[0], line))
        else:
            found.append(Import(name, target, line))      # ours but no such module: reported below

    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:                      # `from pkg import submodule` imports the submodule
                sub = f"{source}.{alias.name}"
                add(sub if sub in modules else source, node.lineno)
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, list[Import]]:
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, list[Import]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a ring (Tarjan's
    strongly connected components of more than one module, or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for edge in graph[v]:
            w = edge.target
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or any(e.target == v for e in graph[v]):
                groups.append(sorted(group))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(graph) + 100))
    try:
        for v in graph:
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return groups


def describe(group: list[str], graph: dict[str, list[Import]], modules: dict[str, Path]) -> str:
    members = set(group)
    lines = [" <-> ".join(group)]
    for name in group:
        for edge in graph[name]:
            if edge.target in members:
                lines.append(f"    {modules[name].relative_to(REPO)}:{edge.line} imports {edge.target}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def product():
    modules = find_modules(REPO)
    return modules, import_graph(modules)


def test_no_import_cycle_between_modules(product):
    modules, graph = product
    found = cycles(graph)
    assert not found, "import cycles (move the shared piece to the module that owns it):\n" + \
        "\n".join(describe(group, graph, modules) for group in found)


def test_every_import_of_ours_names_a_module_that_exists(product):
    modules, graph = product
    missing = [f"{modules[e.module].relative_to(REPO)}:{e.line} imports {e.target}"
               for edges in graph.values() for e in edges
               if e.target.split(".")[0] in PACKAGES and e.target not in modules]
    assert not missing, "\n".join(missing)


def test_dependencies_run_one_way(product):
    modules, graph = product
    wrong = []
    for edges in graph.values():
        for e in edges:
            importer, imported = e.module.split(".")[0], e.target.split(".")[0]
            if imported in PACKAGES and imported not in MAY_IMPORT[importer]:
                wrong.append(f"{modules[e.module].relative_to(REPO)}:{e.line}: {importer} imports {e.target}")
    assert not wrong, "against the one-way rule (kiosk uses the others; vision, robot, calibration " \
                      "may use engine; engine uses none):\n" + "\n".join(wrong)


def test_the_engine_needs_only_the_standard_library(product):
    modules, graph = product
    outside = [f"{modules[e.module].relative_to(REPO)}:{e.line} imports {e.target}"
               for name, edges in graph.items() if name.split(".")[0] == "engine" for e in edges
               if e.target not in modules and e.target not in sys.stdlib_module_names
               and e.target != "__future__"]
    assert not outside, "\n".join(outside)


def test_the_engine_does_no_io_outside_its_command_line(product):
    modules, graph = product
    found = []
    for name, path in modules.items():
        if name.split(".")[0] != "engine" or name in ENGINE_CLI:
            continue
        found += [f"{path.relative_to(REPO)}:{e.line} imports {e.target}" for e in graph[name] if e.target in IO_MODULES]
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in IO_BUILTINS:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} calls {node.func.id}()")
    assert not found, "I/O in the engine outside its CLI modules:\n" + "\n".join(found)


# ---------------------------------------------------------------- the checks themselves, on a made-up tree

def _tree(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return find_modules(root, ("kiosk",))


def test_a_cycle_through_a_function_local_import_is_found_and_type_checking_is_not(tmp_path):
    modules = _tree(tmp_path, {
        "kiosk/__init__.py": "",
        "kiosk/a.py": "from kiosk.b import thing\nfrom kiosk import c\n",
        "kiosk/b.py": "def thing():\n    from . import a\n    return a\n",
        "kiosk/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kiosk.a import x\n",
        "kiosk/d.py": "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    from kiosk import a\n",
    })
    graph = import_graph(modules)
    assert cycles(graph) == [["kiosk.a", "kiosk.b"]]                    # a <-> c does not run: no cycle
    assert {e.target for e in graph["kiosk.c"]} == {"typing"}
    assert {e.target for e in graph["kiosk.d"]} == {"typing", "kiosk.a"}   # the else branch runs


def test_from_a_package_import_a_name_is_an_edge_to_the_package(tmp_path):
    modules = _tree(tmp_path, {
        "kiosk/__init__.py": "from kiosk.inner import VALUE\n",
        "kiosk/inner.py": "from kiosk import other\nVALUE = 1\n",
        "kiosk/other.py": "from kiosk import VALUE\n",          # the package, which imports inner: a ring
    })
    graph = import_graph(modules)
    assert {e.target for e in graph["kiosk.inner"]} == {"kiosk.other"}
    assert cycles(graph) == [["kiosk", "kiosk.inner", "kiosk.other"]]
