"""The package's import graph between its rooms, read from the source with ``ast``.

A *room* is a top-level module or subpackage of ``paperbrief`` (``pipeline``, ``store``,
``write`` …; the package's own ``__init__`` is the room ``paperbrief``). An *arrow* A → B
means some module of room A imports something of room B, anywhere in the module (a lazy
import inside a function, or one only for type checking, is a dependency all the same).

    python -m tests.support.imports [PACKAGE_DIR]     # default: this checkout's src/paperbrief

prints the number of rooms and arrows, then every arrow, so two checkouts compare with the
same rule (e.g. ``python -m tests.support.imports /work/baseline/src/paperbrief``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.support import ROOT

PACKAGE = ROOT / "src" / "paperbrief"
ROOT_ROOM = "paperbrief"


def rooms(package: Path = PACKAGE) -> set[str]:
    """The top-level modules and subpackages (with Python files) of the package."""
    found = {ROOT_ROOM}
    for path in package.iterdir():
        if path.suffix == ".py" and path.stem != "__init__":
            found.add(path.stem)
        elif path.is_dir() and (path / "__init__.py").exists():
            found.add(path.name)
    return found


def _room_of_file(path: Path, package: Path) -> str:
    parts = path.relative_to(package).parts
    if len(parts) == 1:
        return ROOT_ROOM if parts[0] == "__init__.py" else Path(parts[0]).stem
    return parts[0]


def _module_of_file(path: Path, package: Path) -> list[str]:
    parts = ["paperbrief", *path.relative_to(package).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imported(node: ast.AST, path: Path, package: Path) -> Iterator[str]:
    """The dotted names an import statement reaches: ``from paperbrief import rank`` reaches
    ``paperbrief.rank``, ``from paperbrief import __version__`` the package itself (a name
    of its ``__init__``); relative imports are resolved against the module's package."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if node.level:
            here = _module_of_file(path, package)
            base = here if path.name == "__init__.py" else here[:-1]
            base = base[: len(base) - node.level + 1]
            module = ".".join([*base, *([module] if module else [])])
        yield from (f"{module}.{alias.name}" for alias in node.names)


def arrows(package: Path = PACKAGE) -> set[tuple[str, str]]:
    """Every (importing room, imported room) pair, between different rooms."""
    known = rooms(package)
    found: set[tuple[str, str]] = set()
    for path in sorted(package.rglob("*.py")):
        source = _room_of_file(path, package)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported(node, path, package):
                parts = name.split(".")
                if parts[0] != "paperbrief":
                    continue
                target = parts[1] if len(parts) > 1 and parts[1] in known else ROOT_ROOM
                if target != source:
                    found.add((source, target))
    return found


def main(argv: list[str]) -> int:
    package = Path(argv[1]) if len(argv) > 1 else PACKAGE
    graph = sorted(arrows(package))
    print(f"{package}: {len(rooms(package))} rooms, {len(graph)} arrows")
    for source in sorted({source for source, _ in graph}):
        print(f"  {source} -> " + ", ".join(t for s, t in graph if s == source))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
