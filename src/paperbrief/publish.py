"""Publish: the digest's files in the output folder, and whether a day is already out.

* ``output_paths``: where the Markdown (and HTML) of a digest date go;
* ``write_outputs``: each file written atomically, a file already holding the same content
  left untouched (a rerun does not even touch its mtime);
* ``previous_publication``: the reuse / upgrade policy — a day is published once per date,
  an offline digest is upgraded when an LLM is available, nothing is ever downgraded, and a
  listing already published under another date is not published again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from paperbrief.files import write_atomic
from paperbrief.models import OFFLINE_WRITER
from paperbrief.profile import Profile
from paperbrief.records import StoredDigest


@dataclass(frozen=True)
class OutputFile:
    kind: str  # markdown | html
    path: Path
    sha256: str


def output_paths(profile: Profile, out_dir: Path | None, digest_date: date) -> dict[str, Path]:
    """The digest's files: ``<dir>/<filename>.md`` and, when enabled, ``.html``."""
    folder = out_dir or Path(profile.output.dir)
    stem = profile.output.filename.format(date=digest_date.isoformat())
    paths = {"markdown": folder / f"{stem}.md"}
    if profile.output.html:
        paths["html"] = folder / f"{stem}.html"
    return paths


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_outputs(paths: Mapping[str, Path], stored: StoredDigest) -> list[OutputFile]:
    """Write the stored digest's Markdown and HTML to ``paths`` (see the module docstring)."""
    texts = {"markdown": stored.markdown, "html": stored.html}
    written = []
    for kind, path in paths.items():
        digest = _sha(texts[kind])
        if not (path.is_file() and _sha(path.read_text(encoding="utf-8")) == digest):
            write_atomic(path, texts[kind])
        written.append(OutputFile(kind, path, digest))
    return written


@dataclass(frozen=True)
class Previous:
    """A day that is already out: its digest (None when it went out under ``digest_date``,
    another date) and the note that says so."""

    stored: StoredDigest | None
    digest_date: date
    note: str


def previous_publication(
    existing: StoredDigest | None,
    published_dates: Sequence[date],
    digest_date: date,
    listing_day: date,
    writer: str,
    force: bool,
) -> Previous | None:
    """Whether this run should serve an earlier publication instead of writing a new one.

    ``existing``: the digest stored for ``digest_date`` in the profile's language;
    ``published_dates``: digest dates already published from ``listing_day``.
    """
    if force:
        return None
    if existing is not None:
        upgrade = existing.writer == OFFLINE_WRITER and writer != OFFLINE_WRITER
        if not upgrade:
            return Previous(
                existing,
                digest_date,
                f"digest for {digest_date} already published; pass --force to regenerate",
            )
    earlier = [day for day in published_dates if day != digest_date]
    if earlier:
        return Previous(
            None,
            earlier[-1],
            f"listing {listing_day} was already published as the digest of {earlier[-1]};"
            f" pass --force to publish it again as {digest_date}",
        )
    return None
