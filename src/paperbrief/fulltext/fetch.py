"""Fetch a paper's full text: arXiv HTML → ar5iv → PDF → abstract, and the store cache.

``read_paper`` tries the sources in that order and returns the first usable Document;
``Document.attempts`` says why each earlier source was not used, e.g.
``"arxiv-html: arXiv has no HTML for this paper"``. A source is unusable when the request
fails (HTTP error, retries exhausted, body over the size cap), when arXiv answers its
"No HTML for '<id>'" page, when ar5iv redirects to the abstract page, when the LaTeXML
conversion failed (no section with text), or when the PDF has no extractable text. A
LaTeXML page whose *body* (bibliography excluded) has many ``ltx_ERROR`` spans (more than
``DEGRADED_BODY_ERRORS`` and more than one per five paragraphs) is degraded: the next
source is tried, and the degraded page is still used if no later source works (flag
``degraded-fallback``).

Politeness, timeouts and retries are those of the ``PoliteClient`` passed in (the same
client as the arXiv listing stage: one request per 3 s, one connection). The per-source
size caps here apply on top of the client's own ``max_bytes``.

Fetch failures are told apart from absent sources: when a source could not be fetched at
all (DNS failure, refused connection, timeouts, a server error, the run's deadline) its
attempt reads ``"<source>: fetch failed: <why>"`` and an abstract-only Document carries
the flag ``fetch-failed``, so the digest can say "the full text could not be fetched"
rather than "there is no HTML". A host found unreachable is not asked again (the client
remembers it), and once the run's deadline has passed no further source is tried.

A PDF is read in a child process limited to ``MAX_PDF_MEMORY`` of address space and
``MAX_PDF_SECONDS`` of CPU: a 1 MB PDF whose content stream inflates to 1 GiB once took
2.1 GB and 4 s to read; now the child dies at the cap and the source is unusable.

Caching: ``load_or_read_paper`` is the full-text stage's cache boundary. It takes a
``DocumentCache`` (the store's ``documents`` part): a cached Document is returned without
any request (a paper is fetched once); a new one is stored unless it is abstract-only, so a
paper whose full text was unreachable today is tried again on the next run.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import TypeAdapter, ValidationError

from paperbrief.errors import FullTextError, InputFileError, SourceError
from paperbrief.files import read_bounded
from paperbrief.fulltext.author_html import parse_author_html
from paperbrief.fulltext.html_text import AR5IV_ORIGIN, ARXIV_ORIGIN
from paperbrief.fulltext.latexml import classify_html, parse_latexml
from paperbrief.fulltext.pdf import parse_pdf
from paperbrief.models import Document, Paper
from paperbrief.text.arxiv import AR5IV_BASE, HTML_BASE, PDF_BASE, split_arxiv_id

if TYPE_CHECKING:
    from paperbrief.http import PoliteClient

MAX_HTML_BYTES = 20 * 1024 * 1024
MAX_PDF_BYTES = 40 * 1024 * 1024
MAX_PDF_MEMORY = 1024 * 1024 * 1024  # address space of the PDF reader (a paper needs ~50 MB)
MAX_PDF_SECONDS = 60  # CPU seconds of the PDF reader
DEGRADED_BODY_ERRORS = 50
NO_HTML_REASON = "arXiv has no HTML for this paper ('HTML is not available for the source')"


FETCH_FAILED = "fetch failed"  # the prefix of an attempt that could not be fetched at all


class _Unusable(Exception):
    """Internal: this source gave nothing usable; the message says why."""


class _FetchFailed(_Unusable):
    """Internal: the source could not be fetched at all (network, server, deadline)."""

    def __init__(self, reason: str, *, stop: bool = False) -> None:
        super().__init__(f"{FETCH_FAILED}: {reason}")
        self.stop = stop  # no later source can do better (the run's deadline passed)


def _flag_value(doc: Document, name: str) -> int:
    for flag in doc.flags:
        if flag.startswith(name + ":"):
            return int(flag.split(":", 1)[1])
    return 0


def _check_html(doc: Document) -> str | None:
    """Why a parsed HTML Document is not good enough, or None when it is."""
    paragraphs = sum(len(s.paragraphs) for s in doc.sections)
    if paragraphs == 0:
        return "conversion failed: the page has no section with text"
    body_errors = _flag_value(doc, "latexml-body-errors")
    if body_errors > DEGRADED_BODY_ERRORS and body_errors * 5 > paragraphs:
        return f"conversion degraded: {body_errors} LaTeXML error spans in the body"
    return None


def parse_html_page(
    content: bytes, *, arxiv_id: str, page_url: str, source: str, origin: str = ARXIV_ORIGIN
) -> Document:
    """Classify and parse one HTML page; raises ``_Unusable`` for no-HTML/empty pages."""
    kind = classify_html(content.decode("utf-8", errors="replace"))
    if kind == "no-html":
        raise _Unusable(NO_HTML_REASON)
    if kind == "empty":
        raise _Unusable("the page has no readable text")
    if kind == "author-html":
        return parse_author_html(content, arxiv_id=arxiv_id, page_url=page_url, source=source)
    return parse_latexml(
        content, arxiv_id=arxiv_id, page_url=page_url, origin=origin, source=source
    )


def parse_pdf_bounded(content: bytes, **options: Any) -> Document:
    """``parse_pdf`` in a child process with capped memory and CPU (module docstring).

    The child (``_read_pdf_in_this_process``) limits itself before it reads a byte and
    answers with the Document, or the reason it is unreadable, as JSON on stdout. Raises
    FullTextError when the PDF cannot be read or the reader hit a cap.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, json.dumps(options)],
            input=content,
            capture_output=True,
            timeout=MAX_PDF_SECONDS * 2,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise FullTextError(f"the PDF reader failed: {error}", _PDF_HINT) from error
    if done.returncode == 0:
        try:
            return _DOCUMENT.validate_json(done.stdout)
        except ValidationError as error:
            raise FullTextError(f"the PDF reader answered nonsense: {error}", _PDF_HINT) from None
    if done.returncode == _UNREADABLE:
        try:
            reason = json.loads(done.stdout)
            message, hint = str(reason["message"]), str(reason["hint"])
        except (ValueError, KeyError, TypeError):
            message, hint = "the PDF could not be read", _PDF_HINT
        raise FullTextError(message, hint)
    raise FullTextError(
        f"reading the PDF needed more than {MAX_PDF_MEMORY // 2**20} MiB of memory or"
        f" {MAX_PDF_SECONDS} s of CPU (a decompression bomb?)",
        _PDF_HINT,
    )


_CHILD = "from paperbrief.fulltext.fetch import _read_pdf_in_this_process as r; r()"
_DOCUMENT = TypeAdapter(Document)
_UNREADABLE = 3  # the child's exit code for a FullTextError (its stderr says which)
_PDF_HINT = "the digest uses the abstract; the PDF can be read by hand"


def _read_pdf_in_this_process() -> None:
    """The child's side of ``parse_pdf_bounded``: limits first, then the PDF on stdin."""
    resource.setrlimit(resource.RLIMIT_AS, (MAX_PDF_MEMORY, MAX_PDF_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (MAX_PDF_SECONDS, MAX_PDF_SECONDS))
    options = json.loads(sys.argv[1])
    try:
        document = parse_pdf(sys.stdin.buffer.read(), **options)
    except FullTextError as error:
        sys.stdout.write(json.dumps({"message": error.message, "hint": error.hint}))
        sys.exit(_UNREADABLE)
    sys.stdout.buffer.write(_DOCUMENT.dump_json(document))


def _get(client: PoliteClient, url: str, cap: int) -> tuple[bytes, str]:
    # The client's module (httpx) is imported by whoever made the client; not at the top,
    # so the PDF reader's child, which imports this module and fetches nothing, skips it.
    from paperbrief.http import HostUnreachable, HttpStatusError, RunDeadlineReached

    try:
        response = client.get(url)
    except HttpStatusError as error:
        # arXiv answers its "No HTML for '<id>'" page with an error status.
        if classify_html(error.response.text) == "no-html":
            raise _Unusable(NO_HTML_REASON + f" (HTTP {error.status})") from error
        if error.status >= 500:
            raise _FetchFailed(error.message) from error
        raise _Unusable(error.message) from error
    except RunDeadlineReached as error:
        raise _FetchFailed("the run's deadline was reached first", stop=True) from error
    except HostUnreachable as error:
        raise _FetchFailed(error.message) from error
    except SourceError as error:  # retries exhausted, bad gzip, redirect loop, too large
        raise _FetchFailed(error.message) from error
    if len(response.content) > cap:
        raise _Unusable(f"body of {len(response.content)} bytes is over the {cap}-byte cap")
    return response.content, response.url


def read_paper(
    paper_id: str,
    version: int | None,
    client: PoliteClient,
    *,
    html_base: str = HTML_BASE,
    ar5iv_base: str = AR5IV_BASE,
    pdf_base: str = PDF_BASE,
    abstract_fallback: Paper | None = None,
    max_html_bytes: int = MAX_HTML_BYTES,
    max_pdf_bytes: int = MAX_PDF_BYTES,
) -> Document:
    """The paper's full text from the first usable source (see the module docstring).

    Title, authors and abstract the page lacks are taken from ``abstract_fallback`` (the
    listing's metadata, also preferred for authors); flag ``metadata-from-listing``.
    Raises ``FullTextError`` only when every source failed and no fallback was given.
    """
    suffix = f"v{version}" if version else ""
    attempts: list[str] = []
    degraded: Document | None = None
    sources = (
        ("arxiv-html", f"{html_base.rstrip('/')}/{paper_id}{suffix}", ARXIV_ORIGIN),
        # ar5iv serves the latest version it converted; it takes no version suffix.
        ("ar5iv", f"{ar5iv_base.rstrip('/')}/{paper_id}", AR5IV_ORIGIN),
    )
    stopped = False
    for source, url, origin in sources:
        try:
            content, final_url = _get(client, url, max_html_bytes)
            if "/abs/" in final_url:
                raise _Unusable("redirected to the abstract page (no conversion)")
            doc = parse_html_page(
                content, arxiv_id=paper_id, page_url=final_url, source=source, origin=origin
            )
            problem = _check_html(doc)
            if problem is None:
                return _finish(doc, attempts, abstract_fallback)
            if problem.startswith("conversion degraded") and degraded is None:
                degraded = doc
            raise _Unusable(problem)
        except _Unusable as reason:
            attempts.append(f"{source}: {reason}")
            if isinstance(reason, _FetchFailed) and reason.stop:
                stopped = True
                break
    try:
        if stopped:
            raise _Unusable(f"{FETCH_FAILED}: not tried, the run's deadline was reached")
        content, final_url = _get(
            client, f"{pdf_base.rstrip('/')}/{paper_id}{suffix}", max_pdf_bytes
        )
        if not content.startswith(b"%PDF"):
            raise _Unusable("the answer is not a PDF")
        try:
            doc = parse_pdf_bounded(content, arxiv_id=paper_id, source_url=final_url)
        except FullTextError as error:
            raise _Unusable(error.message) from error
        return _finish(doc, attempts, abstract_fallback)
    except _Unusable as reason:
        attempts.append(f"pdf: {reason}")
    if degraded is not None:
        degraded = replace(degraded, flags=(*degraded.flags, "degraded-fallback"))
        return _finish(degraded, attempts, abstract_fallback)
    return _abstract_only(paper_id, suffix, attempts, abstract_fallback)


def _abstract_only(
    paper_id: str, suffix: str, attempts: list[str], fallback: Paper | None
) -> Document:
    """The listing's metadata as a Document (flags ``abstract-only`` and, when a source
    could not be fetched at all, ``fetch-failed``), or FullTextError without metadata."""
    failed = any(f": {FETCH_FAILED}: " in attempt for attempt in attempts)
    if fallback is None:
        raise FullTextError(
            f"no full text for {paper_id}{suffix}: " + "; ".join(attempts),
            "check the network and rerun later"
            if failed
            else "check the id, or rerun later (arXiv may be rate-limiting); the digest can"
            " use the abstract alone",
        )
    return Document(
        arxiv_id=paper_id,
        title=fallback.title,
        authors=fallback.authors,
        abstract=fallback.abstract,
        source="abstract",
        source_url=fallback.abs_url,
        flags=("abstract-only", "fetch-failed") if failed else ("abstract-only",),
        attempts=tuple(attempts),
    )


def _finish(doc: Document, attempts: list[str], metadata: Paper | None) -> Document:
    flags = list(doc.flags)
    title, authors, abstract = doc.title, doc.authors, doc.abstract
    if metadata is not None:
        filled = False
        if not title and metadata.title:
            title, filled = metadata.title, True
        if metadata.authors and tuple(metadata.authors) != tuple(authors):
            authors, filled = tuple(metadata.authors), True
        if not abstract and metadata.abstract:
            abstract, filled = metadata.abstract, True
        if filled:
            flags.append("metadata-from-listing")
    return replace(
        doc,
        title=title,
        authors=authors,
        abstract=abstract,
        flags=tuple(flags),
        attempts=tuple(attempts),
    )


def read_local_file(path: Path) -> Document:
    """Parse a saved ``.html``/``.htm`` page or ``.pdf`` (sources ``local-html``/``local-pdf``).

    The file must be a regular file within the size a downloaded one may have
    (``files.read_bounded``: a pipe or ``/dev/zero`` is refused at once); a ``.html`` that is
    compressed or binary is refused, not read as an empty page. Image URLs of a LaTeXML page
    still resolve against its ``<base>`` on arxiv.org; the arXiv id is taken from that
    ``<base>`` (``/html/<id>v<n>/``) when present.
    """
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".pdf"):
        raise FullTextError(
            f"{path.name} is neither .html/.htm nor .pdf", "pass an arXiv id, a page or a PDF"
        )
    is_pdf = suffix == ".pdf"
    try:
        content = read_bounded(
            path, MAX_PDF_BYTES if is_pdf else MAX_HTML_BYTES, "PDF" if is_pdf else "page"
        )
    except InputFileError as error:
        raise FullTextError(error.message, error.hint) from None
    if is_pdf:
        return parse_pdf_bounded(content, source="local-pdf", source_url=path.resolve().as_uri())
    problem = _not_a_page(content)
    if problem:
        raise FullTextError(f"{path.name} {problem}", "pass the page as saved from the browser")
    head = content[:20000].decode("utf-8", errors="replace")
    match = re.search(r"<base[^>]+href=\"/html/([^\"]+?)/?\"", head)
    arxiv_id = split_arxiv_id(match.group(1))[0] if match else ""
    try:
        doc = parse_html_page(
            content, arxiv_id=arxiv_id, page_url="", source="local-html", origin=ARXIV_ORIGIN
        )
    except _Unusable as reason:
        raise FullTextError(f"{path.name}: {reason}", "try the PDF of the paper instead") from None
    return doc


_COMPRESSED = {b"\x1f\x8b": "gzip", b"PK": "zip", b"BZ": "bzip2", b"\xfd7": "xz", b"(\xb5": "zstd"}


def _not_a_page(content: bytes) -> str:
    """Why ``content`` is not an HTML page ('' when it may be one): compressed, or binary
    (a NUL byte, or text that is mostly not UTF-8, in its first 64 KB)."""
    kind = _COMPRESSED.get(content[:2])
    if kind:
        return f"is {kind}-compressed, not an HTML page: uncompress it first"
    head = content[:65536]
    text = head.decode("utf-8", errors="replace")
    if b"\x00" in head or text.count("\ufffd") > len(text) // 100 or "<" not in text:
        return "is not an HTML page (binary data, not text with tags)"
    return ""


class DocumentCache(Protocol):
    """Where parsed full texts are kept (``store.documents`` implements it)."""

    def load(self, paper_id: str, version: int | None = None) -> Document | None: ...

    def save(self, document: Document, version: int | None) -> None: ...


def _without_places(doc: Document) -> bool:
    """A LaTeXML or PDF Document parsed before paragraphs carried their anchors or pages
    (author-submitted HTML has none to carry)."""
    if doc.source not in ("arxiv-html", "ar5iv", "pdf") or "author-html" in doc.flags:
        return False
    with_text = [s for s in doc.sections if s.paragraphs]
    return bool(with_text) and not any(s.anchors or s.pages for s in with_text)


def load_or_read_paper(
    cache: DocumentCache,
    paper: Paper,
    client: PoliteClient,
    *,
    html_base: str = HTML_BASE,
    ar5iv_base: str = AR5IV_BASE,
    pdf_base: str = PDF_BASE,
) -> Document:
    """The cached Document of ``paper`` or, when none is stored, ``read_paper`` + store it.

    A cached entry is reused when it has the same version as ``paper`` (or either version
    is unknown) and was parsed with the places of its paragraphs (a Document cached before
    anchors existed is read again once, so its citations can link to the paragraph).
    Abstract-only results are returned but not stored (see module docstring).
    """
    cached = cache.load(paper.id, paper.version)
    if cached is not None and not _without_places(cached):
        return cached
    doc = read_paper(
        paper.id,
        paper.version,
        client,
        html_base=html_base,
        ar5iv_base=ar5iv_base,
        pdf_base=pdf_base,
        abstract_fallback=paper,
    )
    if doc.source != "abstract":
        cache.save(doc, paper.version)
    return doc
