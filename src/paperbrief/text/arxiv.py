"""arXiv's own facts, in one place: how a paper's id is written and where the paper lives.

(In ``text/`` because the number grammar must know an id when it reads one; the package
imports nothing else of paperbrief.)

Every reader of ids (the CLI's feedback ids, the library importers, the listing parsers,
the verifier's links, the PDF reader's margin stamp, the number grammar) and every address
of a paper (its abstract page, HTML and PDF; ar5iv) comes from here.
"""

from __future__ import annotations

import re

HOST = "arxiv.org"
SITE = f"https://{HOST}"
HTML_BASE = f"{SITE}/html"  # {HTML_BASE}/{id}v{version}
PDF_BASE = f"{SITE}/pdf"
AR5IV_SITE = "https://ar5iv.labs.arxiv.org"
AR5IV_BASE = f"{AR5IV_SITE}/html"

NEW_ID = r"\d{4}\.\d{4,5}"  # 2604.19011 (since 2007)
OLD_ID = r"[a-z\-]+(?:\.[A-Z]{2})?/\d{7}"  # cs/0601001, math.AG/0601001
# An id without its version, either style: one pattern for every reader of ids.
ID_PATTERN = rf"(?:{NEW_ID}|{OLD_ID})"
# A new-style id whose first four digits are a year and a month: a number written like
# this in a paper's text is an identifier, not a measurement (the number grammar's view).
DATED_NEW_ID = r"\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}"

_VERSION = re.compile(r"v(\d+)$")


def split_arxiv_id(raw: str) -> tuple[str, int | None]:
    """Split ``2605.22817v2`` (or an abs/pdf URL) into ``("2605.22817", 2)``."""
    text = raw.strip()
    for prefix in ("https://", "http://"):
        if text.startswith(prefix):
            text = text.split("/abs/", 1)[-1].split("/pdf/", 1)[-1].split("/html/", 1)[-1]
    text = text.removeprefix("arXiv:").removeprefix("arxiv:").removesuffix(".pdf").strip("/")
    match = _VERSION.search(text)
    if match:
        return text[: match.start()], int(match.group(1))
    return text, None


def abs_url(paper_id: str) -> str:
    """The paper's abstract page, e.g. ``https://arxiv.org/abs/2605.22817``."""
    return f"{SITE}/abs/{paper_id}"


def pdf_url(paper_id: str, version: int | None = None) -> str:
    """The paper's PDF (of ``version``, else the latest)."""
    return f"{PDF_BASE}/{paper_id}" + (f"v{version}" if version else "")


def html_url(paper_id: str, version: int | None = None) -> str:
    """The paper's arXiv HTML page (of ``version``, else the latest)."""
    return f"{HTML_BASE}/{paper_id}" + (f"v{version}" if version else "")
