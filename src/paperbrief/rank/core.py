"""Fusion of the scorers into one day's ranking, with stars, line, terms and a reason."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paperbrief.labels import labels_for
from paperbrief.models import Paper, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank.embed import Embedder
from paperbrief.rank.feedback import FeedbackModel
from paperbrief.rank.scorers import (
    RankContext,
    Scorer,
    ScorerResult,
    default_scorers,
    zscore,
)

# Thresholds on the fused score's standing in its day (z units) for 2..5 stars. On the
# development days the top five papers of a day stand at z 2.5-4.8 (median ~3; 90th
# percentile 4.1 profile-only, 3.4 with feedback) and the real picks at a median of 1.3
# (profile only) to 2.4 (with feedback): most picks get 2-3 stars, 4 stars goes to roughly
# one day-head paper in ten and 5 stars is rare (benchmarks/ranking_bench.py).
STAR_THRESHOLDS = (1.5, 2.6, 3.9, 5.0)


# A paper is "like what you picked before" when the learned scorer puts it this many
# standard deviations above the day's mean.
FEEDBACK_NOTE_Z = 2.0


def stars_for(score: float) -> int:
    """1-5 stars from a fused score in z units."""
    return 1 + sum(score >= threshold for threshold in STAR_THRESHOLDS)


def _reason(language: str, line: str, terms: Sequence[str], notes: Sequence[str]) -> str:
    labels = labels_for(language)
    shown = ", ".join(terms[:4])
    text = labels.rank_fits.format(line=line) + labels.colon.rstrip()
    text += labels.rank_matches.format(terms=shown) if shown else labels.rank_close
    extra = {"feedback": labels.rank_like_picked, "avoid": labels.rank_avoided}
    return text + "".join(labels.separator.rstrip() + extra[note] for note in notes)


def fuse(
    results: Sequence[ScorerResult], line_weights: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Combine scorer results: per-line relevance (z-normalised, weighted) → best line →
    plus additive terms. Returns (score, best line index, components per scorer)."""
    line_score = np.zeros((n, len(line_weights)))
    components: dict[str, np.ndarray] = {}
    has_line = False
    for result in results:
        if result.per_line is not None:
            normalised = zscore(result.per_line)
            line_score += result.weight * normalised
            has_line = True
    # A line's weight shifts its relevance by (weight - 1) standard deviations.
    line_score = line_score + (line_weights - 1.0)[None, :]
    best = line_score.argmax(axis=1) if has_line else np.zeros(n, dtype=int)
    score = line_score[np.arange(n), best] if has_line else np.zeros(n)
    for result in results:
        if result.per_line is not None:
            components[result.name] = zscore(result.per_line)[np.arange(n), best]
        if result.additive is not None:
            contribution = result.weight * result.additive
            components[result.name] = contribution
            score = score + contribution
    return score, best, components


def rank_papers(
    papers: Sequence[Paper],
    profile: Profile,
    embedder: Embedder,
    *,
    feedback: FeedbackModel | None = None,
    scorers: Sequence[Scorer] | None = None,
) -> list[ScoredPaper]:
    """Rank one day's papers for a profile, best first (``rank`` is 1-based).

    Every paper gets a fused score (z units within the day), 1-5 stars, the research line
    that made it score, the matched key phrases and a one-line reason in the profile's
    language. ``feedback`` (a model learned from the reader's signals) is fused in when
    given; ``scorers`` replaces the profile's default scorers (for experiments).
    """
    if not papers:
        return []
    context = RankContext(papers=papers, profile=profile, embedder=embedder)
    active = list(scorers) if scorers is not None else default_scorers(profile)
    results = [scorer.score(context) for scorer in active]
    if feedback is not None and feedback.ready:
        results.append(feedback.score(context))
    line_weights = np.array([line.weight for line in profile.research_lines])
    score, best, components = fuse(results, line_weights, len(papers))
    # Stars come from the fused score re-standardised over the day, so they mean the same
    # whether or not a learned scorer (which widens the scale) is fused in.
    standing = zscore(score) if len(papers) > 1 else np.zeros(len(papers))
    term_results = [r for r in results if r.terms is not None]
    learned = next((r.additive for r in results if r.name == "feedback"), None)
    ranked: list[ScoredPaper] = []
    for index in np.argsort(-score, kind="stable"):
        line_index = int(best[index])
        terms: list[str] = []
        for result in term_results:
            assert result.terms is not None
            terms.extend(t for t in result.terms[index][line_index] if t not in terms)
        notes = []
        if learned is not None and learned[index] >= FEEDBACK_NOTE_Z:
            notes.append("feedback")
        if "avoid" in components and components["avoid"][index] < 0:
            notes.append("avoid")
        line_name = profile.research_lines[line_index].name
        value = float(score[index])
        ranked.append(
            ScoredPaper(
                paper=papers[index],
                score=round(value, 4),
                stars=stars_for(float(standing[index])),
                line=line_name,
                matched_terms=tuple(terms),
                components={k: round(float(v[index]), 4) for k, v in components.items()},
                reason=_reason(profile.language, line_name, terms, notes),
                rank=len(ranked) + 1,
            )
        )
    return ranked
