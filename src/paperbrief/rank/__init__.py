"""Rank stage: cheap scorers (BM25, embeddings, category prior, avoid penalty), the taste
learned from feedback, fusion into 1-5 stars with reasons, the reader's history across
days, and the day's pick selection.

Public API::

    candidates(listing, profile, keep=()) -> list[Paper]   # the day's papers for the reader
    rank_papers(papers, profile, embedder, *, feedback=None) -> list[ScoredPaper]
    load_feedback(log, archive, embedder, settings, before=None, today=None) -> TasteModel
    load_history(picks, log, listing_day) -> History        # picked before, hidden, liked
    apply_history(ranking, history, language) -> list[ScoredPaper]
    select_picks(ranking, profile) -> PickSelection         # a sequence of ScoredPaper
    Embedder(cache=None)                                    # cache: store.embeddings
"""

from paperbrief.rank.candidates import candidates
from paperbrief.rank.core import rank_papers, stars_for
from paperbrief.rank.embed import Embedder, EmbeddingCache
from paperbrief.rank.feedback import load_feedback
from paperbrief.rank.history import History, apply_history, load_history
from paperbrief.rank.select import PickSelection, select_picks
from paperbrief.rank.taste import FeedbackExample, TasteModel

__all__ = [
    "Embedder",
    "EmbeddingCache",
    "FeedbackExample",
    "History",
    "PickSelection",
    "TasteModel",
    "apply_history",
    "candidates",
    "load_feedback",
    "load_history",
    "rank_papers",
    "select_picks",
    "stars_for",
]
