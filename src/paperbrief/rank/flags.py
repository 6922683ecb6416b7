"""Flags a day's ranking carries per paper, as plain values in ``ScoredPaper.components``.

A flag is a component set to 1.0 (absent = not flagged), so it travels with the ranking
through the store, the web UI and the pick selection without a new field:

* ``instructions``: the paper's text gives instructions to the model (``rank.injection``,
  or the judge said so); never picked.
* ``hidden``: the reader said "not interested"; never picked, and leaves the ranking view.
* ``disliked``: the reader's standing verdict is 👎; not picked (a rerun of the day after a
  👎 on one of its picks leaves that pick out), but it stays in the ranking view.
* ``picked_before``: an earlier digest (or imported history) already picked it; not again.
* ``follow_up``: a new version of a paper the reader liked; shown as such.
"""

from __future__ import annotations

from dataclasses import replace

from paperbrief.labels import labels_for
from paperbrief.models import ScoredPaper

INSTRUCTIONS = "instructions"
HIDDEN = "hidden"
DISLIKED = "disliked"
PICKED_BEFORE = "picked_before"
FOLLOW_UP = "follow_up"

# Flags that keep a paper out of the picks.
NEVER_PICKED = (INSTRUCTIONS, HIDDEN, DISLIKED, PICKED_BEFORE)


def has(scored: ScoredPaper, flag: str) -> bool:
    return scored.components.get(flag, 0.0) >= 1.0


def pickable(scored: ScoredPaper) -> bool:
    """Whether the pick selection may take this paper at all."""
    return not any(has(scored, flag) for flag in NEVER_PICKED)


def with_note(reason: str, note: str, language: str) -> str:
    """``reason`` with one more note in the ranking's style (``labels`` punctuation)."""
    if not reason:
        return note.strip()
    if note.strip() in reason:
        return reason
    return reason + labels_for(language).separator.rstrip() + note


def flag_instructions(scored: ScoredPaper, language: str) -> ScoredPaper:
    """``scored`` flagged for instructions to the model: one star, and a reason that says so."""
    note = labels_for(language).rank_instructions
    return replace(
        scored,
        stars=1,
        components={**scored.components, INSTRUCTIONS: 1.0},
        reason=with_note(scored.reason, note, language),
    )


def set_flags(scored: ScoredPaper, flags: dict[str, bool]) -> ScoredPaper:
    """``scored`` with each named flag set (True) or cleared (False)."""
    components = {k: v for k, v in scored.components.items() if k not in flags}
    components.update({name: 1.0 for name, on in flags.items() if on})
    return replace(scored, components=components)
