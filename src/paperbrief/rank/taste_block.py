"""The reader's taste as the judge reads it: a compact, stable list of kept and passed-over
titles (with the reader's notes), rendered into the judge's shared prompt prefix.

The list depends only on the feedback (which papers, which signals, which notes, when) and
on the papers' content, never on a day's listing or ranking: while the feedback does not
change, the block is byte-identical, so the judge's system message stays one cached prefix.

* kept: the ``MAX_KEPT`` most recent papers with a positive standing signal (picked, 👍,
  saved, read), each with its note (an imported pick's rating is its note, "★3");
* passed over: explicit negatives (👎, not interested) first, newest first, then the papers
  the reader saw and passed over that lie nearest to what they kept (cosine of the
  embeddings: the near misses, which say most about taste), ``MAX_PASSED`` in all, from
  the last ``PASSED_WINDOW_DAYS`` days of feedback;
* both lists are shown oldest first, one title a line, each list inside one
  ``<paper key=...>`` block, defused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from paperbrief import prompts
from paperbrief.models import Paper, Signal
from paperbrief.rank.embed import Embedder
from paperbrief.rank.feedback import SIGNAL_WEIGHTS, latest_signals
from paperbrief.rank.text import paper_text
from paperbrief.records import FeedbackEvent
from paperbrief.text import shorten

# The block stands in every judge and screen request of the day (issue 19: a request the
# budget can afford ~130 times a day), so it holds the most recent taste, titles cut short.
MAX_KEPT = 16
MAX_PASSED = 8
PASSED_WINDOW_DAYS = 90
NOTE_CHARS = 160
TITLE_CHARS = 64

NO_FEEDBACK = "(No feedback yet: rate by the reader's description alone.)"


@dataclass(frozen=True)
class TasteItem:
    title: str
    signal: Signal
    when: str  # ISO date
    note: str = ""


@dataclass(frozen=True)
class TasteExamples:
    kept: tuple[TasteItem, ...] = ()
    passed: tuple[TasteItem, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.kept and not self.passed


_SIGNAL_WORDS = {
    Signal.PICKED: "picked",
    Signal.UP: "liked",
    Signal.SAVE: "saved",
    Signal.READ: "read",
    Signal.DOWN: "disliked",
    Signal.HIDE: "not interested",
    Signal.SHOWN: "seen, not picked",
}


def taste_examples(
    events: Iterable[FeedbackEvent], papers: Mapping[str, Paper], embedder: Embedder
) -> TasteExamples:
    """The taste list from the reader's feedback (``papers``: the text of each paper)."""
    events = list(events)
    notes: dict[str, str] = {}
    for event in events:
        if event.note:
            notes[event.paper_id] = " ".join(event.note.split())[:NOTE_CHARS]
    standing = latest_signals((e.paper_id, e.signal, e.created_at) for e in events)
    known = {pid: s for pid, s in standing.items() if pid in papers}

    def item(paper_id: str) -> TasteItem:
        signal, when = known[paper_id]
        return TasteItem(papers[paper_id].title, signal, when[:10], notes.get(paper_id, ""))

    def newest_first(ids: Iterable[str]) -> list[str]:
        return sorted(ids, key=lambda pid: (known[pid][1], papers[pid].title), reverse=True)

    positive = [pid for pid, (signal, _) in known.items() if SIGNAL_WEIGHTS[signal][0] == 1]
    kept = newest_first(positive)[:MAX_KEPT]
    explicit = newest_first(
        pid for pid, (signal, _) in known.items() if signal in (Signal.DOWN, Signal.HIDE)
    )[:MAX_PASSED]
    passed = list(explicit)
    latest = max((when for _, when in known.values()), default="")
    if latest and len(passed) < MAX_PASSED and kept:
        since = (date.fromisoformat(latest[:10]) - timedelta(days=PASSED_WINDOW_DAYS)).isoformat()
        seen = sorted(
            (
                pid
                for pid, (signal, when) in known.items()
                if signal == Signal.SHOWN and when[:10] >= since
            ),
            key=lambda pid: papers[pid].title,
        )
        if seen:
            kept_vectors = embedder.embed([paper_text(papers[pid]) for pid in kept])
            seen_vectors = embedder.embed([paper_text(papers[pid]) for pid in seen])
            nearness = (np.asarray(seen_vectors) @ np.asarray(kept_vectors).T).max(axis=1)
            order = sorted(
                range(len(seen)),
                key=lambda i: (-round(float(nearness[i]), 6), papers[seen[i]].title, seen[i]),
            )
            passed += [seen[i] for i in order[: MAX_PASSED - len(passed)]]

    def oldest_first(ids: Sequence[str]) -> tuple[TasteItem, ...]:
        items = [item(pid) for pid in ids]
        return tuple(sorted(items, key=lambda i: (i.when, i.title)))

    return TasteExamples(kept=oldest_first(kept), passed=oldest_first(passed))


def _line(item: TasteItem) -> str:
    """One title on one line (titles and notes are whitespace-folded, so they cannot start
    another), cut to ``TITLE_CHARS``, its non-default signal and the reader's note after it."""
    text = "- " + shorten(prompts.defuse(item.title), TITLE_CHARS)
    if item.signal not in (Signal.PICKED, Signal.SHOWN):
        text += f" ({_SIGNAL_WORDS[item.signal]})"
    if item.note:
        text += " — " + " ".join(prompts.defuse(item.note).split())
    return text


def render_taste(examples: TasteExamples) -> str:
    """The block as it stands in the judge's system message: each list one untrusted
    ``<paper key="kept">`` / ``<paper key="passed">`` block, one title a line (one pair of
    tags per list rather than per title: the tags are paid for in every request)."""
    if examples.empty:
        return NO_FEEDBACK
    parts = []
    if examples.kept:
        parts.append("Kept (picked, liked or saved; their note after —), oldest first:")
        parts += ['<paper key="kept">', *map(_line, examples.kept), "</paper>"]
    if examples.passed:
        parts.append(
            "Passed over (disliked or not interested, else seen near misses), oldest first:"
        )
        parts += ['<paper key="passed">', *map(_line, examples.passed), "</paper>"]
    return "\n".join(parts)
