"""Rank stage: cheap scorers (BM25, embeddings, category prior, avoid penalty), the taste
learned from feedback, fusion into 1-5 stars with reasons, the reader's history across
days, and the day's pick selection.

Public API::

    candidates(listing, profile, keep=()) -> list[Paper]   # the day's papers for the reader
    reader_of_day(store, embedder, profile, day) -> DayReader
        # the reference, learned taste, taste block, fusion and star calibration of a day
    rank_for(papers, profile, embedder, reader) -> list[ScoredPaper]  # the day's ranking
    rank_papers(papers, profile, embedder, *, feedback=None, reference=SELF,
                calibration=None) -> list[ScoredPaper]  # absolute relevance and stars
    load_feedback(log, archive, embedder, settings, before=None, today=None) -> TasteModel
    papers_to_rate(store, embedder, profile, today) -> list[ScoredPaper]
        # rate to start: a short, diverse, informative selection
    load_history(picks, log, listing_day) -> History        # picked before, hidden, liked
    apply_history(ranking, history, language) -> list[ScoredPaper]
    select_picks(ranking, profile) -> PickSelection         # a sequence of ScoredPaper
    Embedder(cache=None)                                    # cache: store.embeddings
"""

from paperbrief.rank.calibrate import stars_of
from paperbrief.rank.candidates import candidates
from paperbrief.rank.core import rank_papers
from paperbrief.rank.embed import Embedder, EmbeddingCache
from paperbrief.rank.feedback import load_feedback
from paperbrief.rank.history import History, apply_history, load_history
from paperbrief.rank.rate_to_start import papers_to_rate
from paperbrief.rank.reader import DayReader, Reader, rank_for, reader_of_day
from paperbrief.rank.select import PickSelection, select_picks, thin_day_note
from paperbrief.rank.taste import FeedbackExample, TasteModel

__all__ = [
    "DayReader",
    "Embedder",
    "EmbeddingCache",
    "FeedbackExample",
    "History",
    "PickSelection",
    "Reader",
    "TasteModel",
    "apply_history",
    "candidates",
    "load_feedback",
    "load_history",
    "papers_to_rate",
    "rank_for",
    "rank_papers",
    "reader_of_day",
    "select_picks",
    "stars_of",
    "thin_day_note",
]
