"""The cheap scorers. Each is a small class with ``name`` and ``score(context)``.

A scorer returns a :class:`ScorerResult` with any of:

* ``per_line`` — an ``(n_papers, n_lines)`` matrix of relevance to each research line
  (raw units; the fusion z-normalises each column within the day);
* ``additive`` — an ``(n_papers,)`` vector added to the fused score (z units);
* ``terms`` — per paper, per line, the terms that made it score (shown to the reader).

Adding a scorer = writing one class and listing it in :func:`default_scorers`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np

from paperbrief.models import Paper
from paperbrief.profile import Profile, ResearchLine
from paperbrief.rank.bm25 import BM25Index
from paperbrief.rank.embed import Embedder
from paperbrief.rank.text import (
    contains_phrase,
    paper_text,
    phrase_tokens,
    phrase_view,
    tokenize,
)

# Weight of a keyword token relative to a description token in the BM25 query.
KEYWORD_TERM_WEIGHT = 2.0


@dataclass
class RankContext:
    """One day's papers and everything the scorers share (computed once, lazily)."""

    papers: Sequence[Paper]
    profile: Profile
    embedder: Embedder
    # Rows whose statistics standardise every score (None: the papers themselves).
    reference: np.ndarray | None = None

    @cached_property
    def texts(self) -> list[str]:
        return [paper_text(p) for p in self.papers]

    @cached_property
    def tokens(self) -> list[list[str]]:
        return [tokenize(t) for t in self.texts]

    @cached_property
    def phrase_views(self) -> list[str]:
        return [phrase_view(t) for t in self.texts]

    @cached_property
    def embeddings(self) -> np.ndarray:
        return self.embedder.embed(self.texts)

    @property
    def lines(self) -> list[ResearchLine]:
        return list(self.profile.research_lines)


@dataclass
class ScorerResult:
    name: str
    per_line: np.ndarray | None = None
    additive: np.ndarray | None = None
    terms: list[list[list[str]]] | None = None  # [paper][line] -> terms
    weight: float = 1.0


class Scorer(Protocol):
    name: str

    def score(self, context: RankContext) -> ScorerResult: ...


def zscore(values: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """Standardise (column-wise for matrices) by the mean and deviation of the ``reference``
    rows (a boolean mask; None: all rows, i.e. within the day); constant columns become 0."""
    rows = values if reference is None or not reference.any() else values[reference]
    mean = rows.mean(axis=0)
    std = rows.std(axis=0)
    return (values - mean) / np.where(std > 1e-12, std, 1.0)


def line_query_text(line: ResearchLine) -> str:
    """The English text that stands for a research line (description + key phrases)."""
    return line.description.strip() + " Key topics: " + "; ".join(line.keywords) + "."


def keyword_hits(view: str, phrases: Sequence[str]) -> list[str]:
    """The key phrases that occur (stemmed, consecutive) in a paper's phrase view."""
    return [phrase for phrase in phrases if contains_phrase(view, phrase_tokens(phrase))]


@dataclass
class BM25Scorer:
    """Okapi BM25 of each paper against each research line's description and keywords."""

    weight: float = 0.35
    name: str = "bm25"

    def score(self, context: RankContext) -> ScorerResult:
        mask = None if context.reference is None else context.reference.tolist()
        index = BM25Index(context.tokens, statistics=mask)
        columns = []
        for line in context.lines:
            query: dict[str, float] = {}
            for token in tokenize(line.description):
                query[token] = query.get(token, 0.0) + 1.0
            for phrase in line.keywords:
                for token in tokenize(phrase):
                    query[token] = query.get(token, 0.0) + KEYWORD_TERM_WEIGHT
            # Damp repeated terms: a word said five times in the description is not 5x as
            # important as a keyword.
            columns.append(index.score({t: np.sqrt(w) for t, w in query.items()}))
        terms = [
            [keyword_hits(view, line.keywords) for line in context.lines]
            for view in context.phrase_views
        ]
        return ScorerResult(
            self.name, per_line=np.stack(columns, axis=1), terms=terms, weight=self.weight
        )


@dataclass
class EmbeddingScorer:
    """Cosine similarity of each paper's embedding to each research line's embedding.

    A line is represented by its description and by its key phrases; the line score is
    the mean of the similarity to the description text and the best single key phrase.
    """

    weight: float = 0.65
    name: str = "embedding"

    def score(self, context: RankContext) -> ScorerResult:
        papers = context.embeddings
        columns = []
        for line in context.lines:
            description = context.embedder.embed([line_query_text(line)])
            column = papers @ description[0]
            if line.keywords:
                phrases = context.embedder.embed(list(line.keywords))
                column = 0.5 * column + 0.5 * (papers @ phrases.T).max(axis=1)
            columns.append(column)
        return ScorerResult(self.name, per_line=np.stack(columns, axis=1), weight=self.weight)


@dataclass
class CategoryPrior:
    """Additive prior per arXiv category (max over the paper's categories), cross-list factor.

    Values come from ``[rank] category_prior`` (z units of the fused score); papers only
    cross-listed into the profile's categories are shifted by ``cross_list_factor - 1``.
    """

    name: str = "category"
    weight: float = 1.0

    def score(self, context: RankContext) -> ScorerResult:
        settings = context.profile.rank
        prior = settings.category_prior
        values = np.zeros(len(context.papers))
        for index, paper in enumerate(context.papers):
            bonuses = [prior[c] for c in paper.categories if c in prior]
            values[index] = max(bonuses) if bonuses else 0.0
            if paper.is_cross_list_only:
                values[index] += settings.cross_list_factor - 1.0
        return ScorerResult(self.name, additive=values, weight=self.weight)


# How many z units a penalty of 1.0 takes away: enough to push a paper out of the picks.
PENALTY_SCALE = 3.0


@dataclass
class AvoidPenalty:
    """Takes ``penalty * PENALTY_SCALE`` away for each avoid topic a paper matches,
    unless one of the topic's ``unless`` phrases also occurs in it."""

    name: str = "avoid"
    weight: float = 1.0
    matched: list[list[str]] = field(default_factory=list)

    def score(self, context: RankContext) -> ScorerResult:
        values = np.zeros(len(context.papers))
        for index, view in enumerate(context.phrase_views):
            for topic in context.profile.avoid:
                if keyword_hits(view, topic.keywords) and not keyword_hits(view, topic.unless):
                    values[index] -= topic.penalty * PENALTY_SCALE
        return ScorerResult(self.name, additive=values, weight=self.weight)


def default_scorers(profile: Profile) -> list[Scorer]:
    """The profile-driven scorers, weighted by the profile's ``[rank]`` settings."""
    return [
        BM25Scorer(weight=profile.rank.bm25_weight),
        EmbeddingScorer(weight=profile.rank.embedding_weight),
        CategoryPrior(),
        AvoidPenalty(),
    ]
