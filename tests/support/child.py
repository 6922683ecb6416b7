"""`paperbrief run` in a child process, with arXiv on loopback, for the kill -9 and
concurrent-run tests (tests/faults.md).

    python -m tests.support.child SPEC.json

SPEC: {"profile": path, "listing": path, "out": path, "today": "2026-05-23",
       "arxiv": {"html": url, "ar5iv": url, "pdf": url} (optional; then the polite client
       waits no politeness delay between requests: it is our own loopback server)}
The data home is $PAPERBRIEF_HOME, as for the CLI. The child does what `paperbrief run`
does — the same profile loading, services, pipeline, error reporting and exit codes — with
one difference: the arXiv endpoints come from the spec (the CLI always talks to arxiv.org),
and each stage is printed as ``stage: <message>`` (flushed), so the parent can kill the
child at a stage of its choosing. SIGINT and SIGTERM stop it as they stop `paperbrief run`
(``cli.common.stopping``, the same ``Stop`` given to the services).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import TypeVar

from paperbrief.cli.common import get_store, mapped_errors, stopping
from paperbrief.errors import (
    EXIT_DELIVERY_FAILED,
    EXIT_FALLBACKS,
    EmptyDay,
)
from paperbrief.http import PoliteClient
from paperbrief.pipeline import RunOptions, run_day
from paperbrief.profile import load_profile
from paperbrief.retry import RetryPolicy
from paperbrief.services import ArxivEndpoints, Services, Stop, network_deadline

T = TypeVar("T")


class StagePrinter:
    def stage(self, message: str) -> None:
        print(f"stage: {message}", flush=True)

    def track(self, items: Sequence[T], description: str) -> Iterable[T]:
        for index, item in enumerate(items):
            print(f"stage: {description} {index + 1}/{len(items)}", flush=True)
            yield item


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    profile = load_profile(Path(spec["profile"]))
    today = date.fromisoformat(spec.get("today", "2026-05-23"))
    options = RunOptions(listing_file=Path(spec["listing"]), out_dir=Path(spec["out"]))
    stop = Stop()
    with stopping(stop), get_store() as store:
        arxiv = ArxivEndpoints(**spec["arxiv"]) if spec.get("arxiv") else None
        http = None
        if arxiv is not None:
            deadline = network_deadline(profile.run.deadline_minutes, stop)
            http = PoliteClient(
                delay_seconds=0, retry=RetryPolicy(max_retries=0), deadline=deadline
            )
        services = Services.build(
            profile, store, offline=False, day=today, arxiv=arxiv, http=http, stop=stop
        )
        with services:
            result = run_day(
                store, profile, options, services, today=today, reporter=StagePrinter()
            )
    summary = {
        "digest_date": result.digest_date.isoformat(),
        "reused": result.reused,
        "writer": result.writer,
        "files": {kind: str(path) for kind, path in result.files.items()},
        "fallbacks": [[f.part, f.reason, f.paper_id] for f in result.fallbacks],
        "deliveries": [[d.channel, d.status, d.detail] for d in result.deliveries],
        "notes": list(result.notes),
    }
    print("result: " + json.dumps(summary, ensure_ascii=False), flush=True)
    if result.failed_channels:
        return EXIT_DELIVERY_FAILED
    return EXIT_FALLBACKS if result.fallbacks else 0


if __name__ == "__main__":
    with mapped_errors():  # as the CLI: one line per error, 130/143 when interrupted
        try:
            sys.exit(main(sys.argv[1]))
        except EmptyDay as empty:
            print(f"empty: {empty.message}", flush=True)
            sys.exit(empty.exit_code)
