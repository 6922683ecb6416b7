"""Fusion of the scorers into one day's ranking, with stars, line, terms and a reason."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paperbrief.labels import labels_for
from paperbrief.models import Paper, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank import flags
from paperbrief.rank.embed import Embedder
from paperbrief.rank.injection import flagged_papers
from paperbrief.rank.scorers import (
    RankContext,
    Scorer,
    ScorerResult,
    default_scorers,
    zscore,
)
from paperbrief.rank.taste import TasteModel
from paperbrief.rank.text import paper_text, text_hash

# Thresholds on the score's standing in its day (z units) for 2..5 stars: 2 stars is about
# the top 7 % of a day (some 20-60 papers of a real listing), 5 stars is rare. On the
# development days, with the learned taste, the reader's real picks get 1-4 stars as
# {1: 37, 2: 39, 3: 10, 4: 2} (benchmarks/ranking_bench.py prints it): a pick the reader
# found outside the day's top papers stays at one star, honestly.
STAR_THRESHOLDS = (1.5, 2.6, 3.9, 5.0)


# A paper is "like what you picked before" when the learned taste puts it this many
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


def closest_lines(results: Sequence[ScorerResult], fallback: np.ndarray) -> np.ndarray:
    """The research line each paper is semantically closest to, relative to the day: the
    argmax of the embedding similarity z-scored per line (no key-phrase counts, no line
    weights), so a paper is labelled by what it is about, not by the word that lifted it.
    Without an embedding scorer, the line that scored (``fallback``)."""
    embedding = next((r for r in results if r.name == "embedding" and r.per_line is not None), None)
    if embedding is None or embedding.per_line is None:
        return fallback
    return np.asarray(zscore(embedding.per_line).argmax(axis=1))


def content_order(papers: Sequence[Paper], score: np.ndarray) -> np.ndarray:
    """Indices best first; ties broken by the paper's text, never by its id or position."""
    tiebreak = np.array([text_hash(paper_text(p)) for p in papers])
    return np.lexsort((tiebreak, -np.round(score, 10)))


def rank_papers(
    papers: Sequence[Paper],
    profile: Profile,
    embedder: Embedder,
    *,
    feedback: TasteModel | None = None,
    scorers: Sequence[Scorer] | None = None,
) -> list[ScoredPaper]:
    """Rank one day's papers for a profile, best first (``rank`` is 1-based).

    The score is the profile's fused score standardised over the day, plus the taste
    learned from feedback (``feedback``, when it has enough to go on) in the same units.
    Every paper gets 1-5 stars, the research line it is closest to, the matched key phrases
    of that line and a one-line reason in the profile's language. Nothing but the papers'
    content and the reader's feedback ranks: permuting the ids or the order of ``papers``
    gives the same ranking. A paper whose text gives instructions to the model is flagged
    (``flags.INSTRUCTIONS``) and gets one star. ``scorers`` replaces the profile's default
    scorers (for experiments).
    """
    if not papers:
        return []
    n = len(papers)
    context = RankContext(papers=papers, profile=profile, embedder=embedder)
    active = list(scorers) if scorers is not None else default_scorers(profile)
    results = [scorer.score(context) for scorer in active]
    line_weights = np.array([line.weight for line in profile.research_lines])
    fused, best, components = fuse(results, line_weights, n)
    score = zscore(fused) if n > 1 else np.zeros(n)
    components["profile"] = score
    learned = None
    if feedback is not None and feedback.ready:
        taste = feedback.score(context)
        assert taste.additive is not None
        learned = taste.additive
        components["feedback"] = taste.weight * learned
        score = score + components["feedback"]
    # Stars come from the score re-standardised over the day, so they mean the same
    # whether or not the learned taste (which widens the scale) is in.
    standing = zscore(score) if n > 1 else np.zeros(n)
    labelled = closest_lines(results, best)
    term_results = [r for r in results if r.terms is not None]
    instructions = flagged_papers(papers)
    ranked: list[ScoredPaper] = []
    for index in content_order(papers, score):
        line_index = int(labelled[index])
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
        scored = ScoredPaper(
            paper=papers[index],
            score=round(float(score[index]), 4),
            stars=stars_for(float(standing[index])),
            line=line_name,
            matched_terms=tuple(terms),
            components={k: round(float(v[index]), 4) for k, v in components.items()},
            reason=_reason(profile.language, line_name, terms, notes),
            rank=len(ranked) + 1,
        )
        if papers[index].id in instructions:
            scored = flags.flag_instructions(scored, profile.language)
        ranked.append(scored)
    return ranked
