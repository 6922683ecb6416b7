"""Which of a day's listed papers are candidates for the reader at all."""

from __future__ import annotations

from collections.abc import Collection

from paperbrief.models import Listing, ListingKind, Paper
from paperbrief.profile import Profile


def candidates(listing: Listing, profile: Profile, keep: Collection[str] = ()) -> list[Paper]:
    """Papers listed in the profile's categories, in listing order.

    Replacements (new versions of older papers) are kept when the profile asks for them,
    and always for the papers in ``keep`` (those the reader liked: a new version is a
    follow-up worth showing). A source without per-category information is judged by the
    paper's own categories.
    """
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
        replacement = all(k == "replace" for k in kinds.values())
        if replacement and not profile.include_replacements and paper.id not in keep:
            continue
        kept.append(paper)
    return kept
