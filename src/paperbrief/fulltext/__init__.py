"""fulltext stage: arXiv HTML / ar5iv / PDF → Document (sections, tables, figures).

Public surface (what other stages call; the ``Document`` it produces is a shared value in
``models.py``):

* ``read_paper(paper_id, version, client, *, html_base, ar5iv_base, pdf_base,
  abstract_fallback) -> Document`` and ``load_or_read_paper(cache, paper, client) -> Document``
  (``cache``: a ``DocumentCache`` such as ``store.documents``); ``read_local_file(path)``;
* ``plan_reading(doc, budget)`` (``reading.py``): what the LLM writer is sent — the whole
  main body with evidence ids, or two passes for a long paper;
* ``build_units(doc)`` (``units.py``): the paper's evidence units (every sentence and table
  cell, numbered), which claims cite and the verifier checks against; ``place_of`` says
  where a unit is for the reader's click;
* views for the offline writer: ``choose_figure``, ``section_sentences``; tables:
  ``results_tables``, ``table_to_markdown``; ``to_table_data``/``to_figure`` convert to the
  digest's ``TableData``/``Figure``; ``fulltext_status`` says what full text a brief was
  written from.
"""

from paperbrief.fulltext.fetch import (
    DocumentCache,
    load_or_read_paper,
    read_local_file,
    read_paper,
)
from paperbrief.fulltext.reading import ReadingPlan, plan_reading
from paperbrief.fulltext.status import FullTextStatus, fulltext_status
from paperbrief.fulltext.tables import results_tables, table_to_markdown, to_table_data
from paperbrief.fulltext.units import Unit, UnitIndex, build_units, place_of
from paperbrief.fulltext.views import choose_figure, section_sentences, to_figure

__all__ = [
    "ReadingPlan",
    "Unit",
    "UnitIndex",
    "build_units",
    "place_of",
    "plan_reading",
    "DocumentCache",
    "FullTextStatus",
    "choose_figure",
    "fulltext_status",
    "load_or_read_paper",
    "read_local_file",
    "read_paper",
    "results_tables",
    "section_sentences",
    "table_to_markdown",
    "to_figure",
    "to_table_data",
]
