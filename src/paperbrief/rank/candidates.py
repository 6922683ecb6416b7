"""Which of a day's listed papers are candidates for the reader at all."""

from __future__ import annotations

from paperbrief.models import Listing, ListingKind, Paper
from paperbrief.profile import Profile


def candidates(listing: Listing, profile: Profile) -> list[Paper]:
    """Papers listed in the profile's categories, in listing order (replacements only when
    the profile asks for them). A source without per-category information is judged by
    the paper's own categories."""
    wanted = set(profile.all_categories)
    kept = []
    for paper in listing.papers:
        kinds: dict[str, ListingKind] = {
            category: kind for category, kind in paper.listings.items() if category in wanted
        }
        if not paper.listings:
            kinds = {category: "new" for category in paper.categories if category in wanted}
        if not kinds:
            continue
        if not profile.include_replacements and all(k == "replace" for k in kinds.values()):
            continue
        kept.append(paper)
    return kept
