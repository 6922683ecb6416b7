"""`paperbrief demo`: the whole pipeline on the bundled sample day, offline, no key needed."""

from __future__ import annotations

from contextlib import ExitStack
from datetime import date
from importlib import resources
from pathlib import Path

import click

from paperbrief.cli.common import console, report_empty
from paperbrief.cli.daily import RichReporter, report_run
from paperbrief.errors import EmptyDay
from paperbrief.pipeline import RunOptions, run_day
from paperbrief.profile import home_dir, load_profile
from paperbrief.services import Services
from paperbrief.sources import digest_date_for
from paperbrief.store import open_store

SAMPLE_DAY = "2026-05-22"


def sample_file(name: str) -> resources.abc.Traversable:
    """A file of the bundled sample (``paperbrief/data/sample``)."""
    return resources.files("paperbrief") / "data" / "sample" / name


@click.command("demo", short_help="A digest from the bundled sample day, offline.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("paperbrief-demo"),
    show_default=True,
    help="Folder for the digest files.",
)
@click.option("--force", is_flag=True, help="Regenerate the digest even if it exists.")
def demo(out_dir: Path, force: bool) -> None:
    """Make a digest from the bundled sample day, offline: no key, no network.

    The sample is a real arXiv listing (2026-05-22: 480 papers in cs.AI, cs.CL, cs.LG,
    cs.SE) read with the example profile of an AI-for-software-engineering PhD student.
    Its data goes to $PAPERBRIEF_HOME/demo, apart from your own store.
    """
    with ExitStack() as stack:
        listing = stack.enter_context(resources.as_file(sample_file(f"{SAMPLE_DAY}.jsonl.gz")))
        profile_path = stack.enter_context(resources.as_file(sample_file("profile.toml")))
        profile = load_profile(profile_path)
        options = RunOptions(listing_file=listing, out_dir=out_dir, force=force, deliver=False)
        store = stack.enter_context(open_store(home_dir() / "demo" / "paperbrief.db"))
        services = stack.enter_context(Services.build(profile, store, offline=True))
        console.print(f"sample day {SAMPLE_DAY}, profile: {profile.name} (offline writer)")
        try:
            with RichReporter() as reporter:
                today = digest_date_for(date.fromisoformat(SAMPLE_DAY))
                result = run_day(store, profile, options, services, today=today, reporter=reporter)
        except EmptyDay as empty:  # the sample always has papers; say so if it ever has not
            report_empty("nothing published", empty)
    report_run(result)


COMMANDS: list[click.Command] = [demo]
