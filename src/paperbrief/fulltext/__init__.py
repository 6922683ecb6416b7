"""fulltext stage: arXiv HTML / ar5iv / PDF → Document (sections, tables, figures).

Public surface (what other stages call):

* ``read_paper(paper_id, version, client, *, html_base, ar5iv_base, pdf_base,
  abstract_fallback) -> Document`` and ``load_or_read_paper(cache, paper, client) -> Document``
  (``cache``: a ``DocumentCache`` such as ``store.documents``); ``read_local_file(path)``;
* views: ``budgeted_text``, ``evidence_index``, ``choose_figure``, ``results_tables``,
  ``section_sentences``, ``table_to_markdown``; ``to_table_data``/``to_figure`` convert to
  the digest's ``TableData``/``Figure``.
"""

from paperbrief.fulltext.document import (
    Document,
    Evidence,
    FigureRef,
    Section,
    Table,
)
from paperbrief.fulltext.fetch import (
    DocumentCache,
    load_or_read_paper,
    read_local_file,
    read_paper,
)
from paperbrief.fulltext.views import (
    budgeted_text,
    choose_figure,
    evidence_index,
    results_tables,
    section_sentences,
    table_to_markdown,
    to_figure,
    to_table_data,
)

__all__ = [
    "Document",
    "DocumentCache",
    "Evidence",
    "FigureRef",
    "Section",
    "Table",
    "budgeted_text",
    "choose_figure",
    "evidence_index",
    "load_or_read_paper",
    "read_local_file",
    "read_paper",
    "results_tables",
    "section_sentences",
    "table_to_markdown",
    "to_figure",
    "to_table_data",
]
