"""fulltext stage: arXiv HTML / ar5iv / PDF → Document (sections, tables, figures).

Public surface (what other stages call):

* ``read_paper(paper_id, version, client, *, html_base, ar5iv_base, pdf_base,
  abstract_fallback) -> Document`` and ``load_or_read_paper(store, paper, client) -> Document``
  (cached in the store's ``documents`` table); ``read_local_file(path) -> Document``;
* ``document_to_json`` / ``document_from_json``;
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
    document_from_json,
    document_to_json,
)
from paperbrief.fulltext.fetch import load_or_read_paper, read_local_file, read_paper
from paperbrief.fulltext.views import (
    budgeted_text,
    choose_figure,
    estimate_tokens,
    evidence_index,
    results_tables,
    section_sentences,
    table_to_markdown,
    to_figure,
    to_table_data,
)

__all__ = [
    "Document",
    "Evidence",
    "FigureRef",
    "Section",
    "Table",
    "budgeted_text",
    "choose_figure",
    "document_from_json",
    "document_to_json",
    "estimate_tokens",
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
