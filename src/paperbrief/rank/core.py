"""Fusion of the scorers into one day's ranking, with stars, line, terms and a reason."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paperbrief.labels import labels_for
from paperbrief.models import Paper, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.rank import flags
from paperbrief.rank.calibrate import Calibration, cheap_default, stars_of
from paperbrief.rank.embed import Embedder
from paperbrief.rank.injection import flagged_papers
from paperbrief.rank.reference import SELF, Reference
from paperbrief.rank.scorers import (
    RankContext,
    Scorer,
    ScorerResult,
    default_scorers,
    zscore,
)
from paperbrief.rank.taste import TasteModel
from paperbrief.rank.text import paper_text, text_hash

# The day size the cheap stars assume without a reference (the day is then its own): the
# mean of the 41 real listing days of cs.AI/CL/LG/SE in the shared data is about 540, the
# bundled sample day 480.
TYPICAL_DAY = 480.0

# A paper is "like what you picked before" when the learned taste puts it this many
# standard deviations above the day's mean.
FEEDBACK_NOTE_Z = 2.0


def _reason(language: str, line: str, terms: Sequence[str], notes: Sequence[str]) -> str:
    labels = labels_for(language)
    shown = ", ".join(terms[:4])
    text = labels.rank_fits.format(line=line) + labels.colon.rstrip()
    text += labels.rank_matches.format(terms=shown) if shown else labels.rank_close
    extra = {"feedback": labels.rank_like_picked, "avoid": labels.rank_avoided}
    return text + "".join(labels.separator.rstrip() + extra[note] for note in notes)


def fuse(
    results: Sequence[ScorerResult],
    line_weights: np.ndarray,
    n: int,
    reference: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Combine scorer results: per-line relevance (z-normalised, weighted) → best line →
    plus additive terms. Returns (score, best line index, components per scorer)."""
    line_score = np.zeros((n, len(line_weights)))
    components: dict[str, np.ndarray] = {}
    has_line = False
    for result in results:
        if result.per_line is not None:
            normalised = zscore(result.per_line, reference)
            line_score += result.weight * normalised
            has_line = True
    # A line's weight shifts its relevance by (weight - 1) standard deviations.
    line_score = line_score + (line_weights - 1.0)[None, :]
    best = line_score.argmax(axis=1) if has_line else np.zeros(n, dtype=int)
    score = line_score[np.arange(n), best] if has_line else np.zeros(n)
    for result in results:
        if result.per_line is not None:
            components[result.name] = zscore(result.per_line, reference)[np.arange(n), best]
        if result.additive is not None:
            contribution = result.weight * result.additive
            components[result.name] = contribution
            score = score + contribution
    return score, best, components


def closest_lines(
    results: Sequence[ScorerResult], fallback: np.ndarray, reference: np.ndarray | None = None
) -> np.ndarray:
    """The research line each paper is semantically closest to, relative to the day: the
    argmax of the embedding similarity z-scored per line (no key-phrase counts, no line
    weights), so a paper is labelled by what it is about, not by the word that lifted it.
    Without an embedding scorer, the line that scored (``fallback``)."""
    embedding = next((r for r in results if r.name == "embedding" and r.per_line is not None), None)
    if embedding is None or embedding.per_line is None:
        return fallback
    return np.asarray(zscore(embedding.per_line, reference).argmax(axis=1))


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
    reference: Reference = SELF,
    calibration: Calibration | None = None,
) -> list[ScoredPaper]:
    """Rank one day's papers for a profile, best first (``rank`` is 1-based).

    The cheap score is the profile's fused score plus the taste learned from feedback
    (``feedback``, when it has enough to go on), both standardised against ``reference``
    (``rank.reference``; without one, against the day itself): ``components["cheap"]``. Its
    percentile among the reference papers, mapped through ``calibration`` (default: the
    cheap tier's default, ``rank.calibrate``), is the paper's absolute relevance 0-100
    (``score`` and ``components["relevance"]``) and its stars. Every paper also gets the
    research line it is closest to, the matched key phrases of that line and a one-line
    reason in the profile's language. Nothing but the papers' content, the reference and the
    reader's feedback ranks: permuting the ids or the order of ``papers``, or adding papers
    to the day, leaves a paper's score as it was. A paper whose text gives instructions to
    the model is flagged (``flags.INSTRUCTIONS``) and gets one star. ``scorers`` replaces
    the profile's default scorers (for experiments).
    """
    if not papers:
        return []
    n = len(papers)
    ids = {p.id for p in papers}
    hashes = {text_hash(paper_text(p)) for p in papers}
    background = [
        p for p in reference.papers if p.id not in ids and text_hash(paper_text(p)) not in hashes
    ]
    if reference.vectors:
        embedder.know(reference.vectors, reference.vectors_model)
    everything = [*papers, *background]
    total = len(everything)
    mask: np.ndarray | None = None
    if background:
        mask = np.zeros(total, dtype=bool)
        mask[n:] = True
    context = RankContext(papers=everything, profile=profile, embedder=embedder, reference=mask)
    active = list(scorers) if scorers is not None else default_scorers(profile)
    results = [scorer.score(context) for scorer in active]
    line_weights = np.array([line.weight for line in profile.research_lines])
    fused, best, components = fuse(results, line_weights, total, mask)
    score = zscore(fused, mask) if total > 1 else np.zeros(total)
    components["profile"] = score
    learned = None
    if feedback is not None and feedback.ready:
        taste = feedback.score(context)
        assert taste.additive is not None
        learned = taste.additive
        components["feedback"] = taste.weight * learned
        score = score + components["feedback"]
    components["cheap"] = score
    against = np.sort(score[n:] if background else score)
    # Mid-rank: the share of the reference below the paper, ties counted half.
    below = np.searchsorted(against, score, side="left")
    equal = np.searchsorted(against, score, side="right") - below
    percentile = (below + 0.5 * equal) / len(against)
    components["percentile"] = percentile
    if calibration is None:
        size = reference.mean_day_size if background else TYPICAL_DAY
        calibration = cheap_default(profile.picks_per_day, size)
    relevance = np.array([calibration.relevance(float(p)) for p in percentile])
    components["relevance"] = relevance
    labelled = closest_lines(results, best, mask)
    term_results = [r for r in results if r.terms is not None]
    instructions = flagged_papers(papers)
    ranked: list[ScoredPaper] = []
    for index in content_order(papers, score[:n]):
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
            score=round(float(relevance[index]), 2),
            stars=stars_of(float(relevance[index])),
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
