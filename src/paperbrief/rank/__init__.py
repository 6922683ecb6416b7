"""Rank stage: cheap scorers (BM25, embeddings, category prior, avoid penalty), a scorer
learned from feedback, fusion into 1-5 stars with reasons, and the day's pick selection.

Public API::

    candidates(listing, profile) -> list[Paper]      # the day's papers in the profile's categories
    rank_papers(papers, profile, embedder, *, feedback=None) -> list[ScoredPaper]
    select_picks(ranking, profile) -> list[ScoredPaper]
    Embedder(cache=None)              # cache: the Store (get/put_embeddings)
    FeedbackModel(embedder).fit(examples, today)
    load_feedback(store, embedder, before=None, today=None) -> FeedbackModel
"""

from paperbrief.rank.candidates import candidates
from paperbrief.rank.core import rank_papers, stars_for
from paperbrief.rank.embed import Embedder, EmbeddingCache
from paperbrief.rank.feedback import FeedbackExample, FeedbackModel, load_feedback
from paperbrief.rank.select import select_picks

__all__ = [
    "Embedder",
    "EmbeddingCache",
    "FeedbackExample",
    "FeedbackModel",
    "candidates",
    "load_feedback",
    "rank_papers",
    "select_picks",
    "stars_for",
]
