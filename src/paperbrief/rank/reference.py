"""The reference a day is ranked against: a background of real listing days.

Every statistic of the ranking (the scorers' z means and deviations, BM25's document
frequencies and length norm, the learned taste's z) comes from the reference, never from
the day, so a paper's score and stars do not depend on the papers listed with it: the same
paper scores the same in a day of 5 papers or of 5,000 (``rank_papers(reference=...)``).

The reference of a listing day is the profile's candidates of the ``DAYS`` most recent
stored listing days before it, plus the sample day bundled with paperbrief (480 real papers
of cs.AI/CL/LG/SE, 2026-05-22, restricted to the profile's categories) while the stored
days hold fewer than ``MIN_PAPERS``. With neither (a first run in other categories), the
day is its own reference and the ranking says so (``SELF``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Protocol

import numpy as np

from paperbrief.models import Listing, Paper
from paperbrief.profile import Profile
from paperbrief.rank.candidates import candidates

DAYS = 3
MIN_PAPERS = 1000
SAMPLE_DAY = "2026-05-22"
SAMPLE_FOLDER = Path(__file__).resolve().parent.parent / "data" / "sample"
# The sample day's vectors by the default model (and the example profile's texts), shipped
# so a first run need not embed its reference; ``tests/test_embed.py`` checks them against
# the model.
BUNDLED_VECTORS = SAMPLE_FOLDER / f"{SAMPLE_DAY}.vectors.npz"


class ListingArchive(Protocol):
    """Stored listings (the store's ``listings`` part implements it)."""

    def days(self) -> list[date]: ...

    def load(self, day: date) -> Listing | None: ...


@dataclass(frozen=True)
class Reference:
    papers: tuple[Paper, ...]
    days: tuple[str, ...]  # where they come from: ISO listing days, "sample" for the bundled one
    # Vectors known in advance (text hash -> unit vector) and the model that made them.
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)
    vectors_model: str = ""

    @property
    def mean_day_size(self) -> float:
        return len(self.papers) / max(len(self.days), 1)


SELF = Reference((), ())


@lru_cache(maxsize=1)
def bundled_vectors() -> tuple[str, dict[str, np.ndarray]]:
    """The shipped vectors of the sample day: (model name, text hash -> vector)."""
    with np.load(BUNDLED_VECTORS) as data:
        model = str(data["model"])
        return model, dict(zip((str(h) for h in data["hashes"]), data["vectors"], strict=True))


@lru_cache(maxsize=1)
def sample_papers() -> tuple[Paper, ...]:
    """The bundled sample day's papers (package data; read once)."""
    from paperbrief.sources import load_snapshot

    data = resources.files("paperbrief") / "data" / "sample" / f"{SAMPLE_DAY}.jsonl.gz"
    with resources.as_file(data) as path:
        return tuple(load_snapshot(path).papers)


def reference_for(
    archive: ListingArchive,
    profile: Profile,
    listing_day: date,
    sample: Sequence[Paper] | None = None,
) -> Reference:
    """The reference of ``listing_day`` (see the module docstring); ``sample`` replaces the
    bundled sample day (default: the bundled one)."""
    papers: list[Paper] = []
    days: list[str] = []
    for day in [d for d in archive.days() if d < listing_day][-DAYS:]:
        listing = archive.load(day)
        if listing is not None:
            papers += candidates(listing, profile)
            days.append(day.isoformat())
    if len(papers) < MIN_PAPERS:
        wanted = set(profile.all_categories)
        pool = sample_papers() if sample is None else tuple(sample)
        extra = [p for p in pool if wanted & set(p.categories)]
        if extra:
            papers += extra
            days.append("sample")
            if sample is None:
                model, vectors = bundled_vectors()
                return Reference(tuple(papers), tuple(days), vectors, model)
    return Reference(tuple(papers), tuple(days))
