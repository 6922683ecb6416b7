"""The package's shape, checked from its source (``tests/support/imports.py``): every room
sits on a floor, no import goes up a floor or round in a cycle, and the "never" rules of
the intended structure hold.

    floor 0  core values       errors, models, records, text, profile, labels, prompts ...
    floor 1  clients           transport, http, llm
    floor 2  storage           store
    floor 3  stages            sources, rank, fulltext, write, render, deliver, library, publish
    floor 4  composition       services, pipeline, lab
    floor 5  faces             cli, web, launch, __main__

A new room must be given a floor here; the arrow count is printed (``-s``) so a change
can say what it did to the graph.
"""

from __future__ import annotations

import graphlib

from tests.support.imports import arrows, rooms

FLOORS: dict[str, int] = {
    **dict.fromkeys(
        ["paperbrief", "errors", "models", "records", "text", "retry", "files", "labels"]
        + ["profile", "profile_checks", "prompts", "environment", "install"],
        0,
    ),
    **dict.fromkeys(["transport", "http", "llm"], 1),
    "store": 2,
    **dict.fromkeys(
        ["sources", "rank", "fulltext", "write", "render", "deliver", "library", "publish"], 3
    ),
    **dict.fromkeys(["services", "pipeline", "lab"], 4),
    **dict.fromkeys(["cli", "web", "launch", "__main__"], 5),
}
STAGES = {room for room, floor in FLOORS.items() if floor == 3}
FACES = {"cli", "web", "launch", "__main__"}
CLIENTS = {"transport", "http", "llm"}
STORAGE = {"store"}
GRAPH = arrows()  # read once for the module


def test_every_room_has_a_floor_and_no_arrow_goes_up():
    print(f"\nimport graph: {len(rooms())} rooms, {len(GRAPH)} arrows")
    assert rooms() == set(FLOORS), "give the new room a floor in FLOORS"
    upward = sorted((a, b) for a, b in GRAPH if FLOORS[b] > FLOORS[a])
    assert not upward, f"imports that go up a floor: {upward}"


def test_the_import_graph_has_no_cycle():
    sorter = graphlib.TopologicalSorter[str]()
    for source, target in GRAPH:
        sorter.add(source, target)
    sorter.prepare()  # raises CycleError naming the cycle


def test_no_stage_imports_a_face_or_the_pipeline():
    assert not [(a, b) for a, b in GRAPH if a in STAGES and b in FACES | {"pipeline"}]


def test_no_storage_imports_a_stage():
    assert not [(a, b) for a, b in GRAPH if a in STORAGE and b in STAGES]


def test_no_face_imports_a_client():
    assert not [(a, b) for a, b in GRAPH if a in FACES and b in CLIENTS]


def test_every_error_class_is_drawn_in_the_tree_of_errors_py():
    import importlib
    import pkgutil

    import paperbrief
    from paperbrief import errors

    for module in pkgutil.walk_packages(paperbrief.__path__, "paperbrief."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    classes, stack = [], [errors.PaperbriefError]
    while stack:
        error = stack.pop()
        classes.append(error)
        stack.extend(error.__subclasses__())
    tree = errors.__doc__ or ""
    missing = []
    for error in classes:
        where = error.__module__.removeprefix("paperbrief.")
        name = error.__name__ if where == "errors" else f"{where}.{error.__name__}"
        if f"── {name} " not in tree and f"    {name}\n" not in tree:
            missing.append(name)
    assert missing == [], "draw them in errors.py's docstring"
