"""fulltext stage: arXiv HTML / ar5iv / PDF → Document (sections, tables, figures).

Public surface (what other stages call; the ``Document`` it produces is a shared value in
``models.py``):

* ``read_paper(paper_id, version, client, *, html_base, ar5iv_base, pdf_base,
  abstract_fallback) -> Document`` and ``load_or_read_paper(cache, paper, client) -> Document``
  (``cache``: a ``DocumentCache`` such as ``store.documents``); ``read_local_file(path)``;
* views: ``writer_view`` / ``budgeted_text`` (what the writer reads, by importance),
  ``evidence_index``, ``choose_figure``, ``section_sentences``; tables: ``results_tables``,
  ``table_to_markdown``; ``to_table_data``/``to_figure`` convert to the digest's
  ``TableData``/``Figure``; ``fulltext_status`` says what full text a brief was written from.
"""

from paperbrief.fulltext.fetch import (
    DocumentCache,
    load_or_read_paper,
    read_local_file,
    read_paper,
)
from paperbrief.fulltext.status import FullTextStatus, fulltext_status
from paperbrief.fulltext.tables import results_tables, table_to_markdown, to_table_data
from paperbrief.fulltext.views import (
    WriterView,
    budgeted_text,
    choose_figure,
    evidence_index,
    section_sentences,
    to_figure,
    writer_view,
)

__all__ = [
    "DocumentCache",
    "FullTextStatus",
    "WriterView",
    "budgeted_text",
    "choose_figure",
    "evidence_index",
    "fulltext_status",
    "load_or_read_paper",
    "read_local_file",
    "read_paper",
    "results_tables",
    "section_sentences",
    "table_to_markdown",
    "to_figure",
    "to_table_data",
    "writer_view",
]
