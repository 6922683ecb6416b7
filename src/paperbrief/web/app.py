"""The web UI: read the archive, see the full ranking, give feedback, edit the profile.

For a lab (``create_app(..., readers=...)``, `serve --readers`) each reader is served
through their own ``Site`` (their view of the store, their profile file) and the owner also
has ``/owner`` (``web.readers``).

``create_app(store_path, profile_path, token=None)`` builds the Starlette app over the
module's handlers (``ROUTES``; each reads the app's ``Site`` from ``request.app.state``, so
a handler can be imported and called alone); `paperbrief serve` runs it with uvicorn. Pages
are Jinja templates with autoescaping, so every piece of paper text is escaped. No endpoint
fetches a URL: everything shown comes from the store.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from paperbrief.errors import InputFileError, ProfileError, ProfileProblem
from paperbrief.files import read_bounded, write_atomic
from paperbrief.fulltext.present import document_outline
from paperbrief.labels import labels_for
from paperbrief.models import Signal
from paperbrief.profile import MAX_PROFILE_BYTES, decode_profile, parse_profile, profile_template
from paperbrief.render.clean import readable
from paperbrief.render.links import annotate_brief
from paperbrief.render.rich import html_blocks, html_inline
from paperbrief.store import Store, open_store
from paperbrief.store.feedback import Feedback
from paperbrief.store.search import passage, query_terms
from paperbrief.web import reading
from paperbrief.web.labels import web_labels_for
from paperbrief.web.profile_form import apply_fields, line_fields, shown_fields
from paperbrief.web.readers import WebReader, owner_view, reader_tokens
from paperbrief.web.security import (
    CSRF_FIELD,
    PROTECTED_KEYS,
    AccessMiddleware,
    changed_protected,
    protected_values,
    verified_form,
)

STATIC = Path(__file__).parent / "static"
RANKING_PAGE = 150  # rows shown before "show all"
BUTTONS = frozenset(signal.value for signal in Signal if signal.is_button)


class Site:
    """Per-app settings the handlers share (no module-level state)."""

    def __init__(
        self,
        store_path: Path,
        profile_path: Path,
        secure_cookies: bool = False,
        reader: WebReader | None = None,
    ) -> None:
        self.store_path = store_path
        self.profile_path = profile_path
        self.secure_cookies = secure_cookies
        self.reader = reader  # a reader's site: their view of the store, their profile
        self.templates = Environment(
            loader=PackageLoader("paperbrief", "web/templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        # what the model wrote renders as on the digest page and in the e-mail
        self.templates.globals.update(rich=html_blocks, rich_inline=html_inline)

    @contextmanager
    def store(self) -> Iterator[Store]:
        with open_store(self.store_path) as store:
            yield store.for_reader(self.reader.key) if self.reader else store

    def language(self) -> str:
        try:
            return parse_profile(self.profile_text(), str(self.profile_path)).language
        except (OSError, ProfileError):
            return "zh"

    def papers_to_rate(self, count: int) -> list[str]:
        """The ids of the papers rate-to-start asks about now (none without a profile)."""
        from datetime import date

        from paperbrief.rank import papers_to_rate
        from paperbrief.services import Services

        try:
            profile = parse_profile(self.profile_text(), str(self.profile_path))
        except ProfileError:
            return []
        with self.store() as store:
            embedder = Services.build(profile, store, offline=True).embedder
            chosen = papers_to_rate(  # the reader's own history (``Store.history_of``)
                store.history_of(profile.key),
                embedder,
                profile,
                date.today(),
                count,
                log=self.feedback(store),
            )
        return [s.paper.id for s in chosen]

    def feedback(self, store: Store) -> Feedback:
        """The feedback of the profile this UI serves (of every profile when it has none)."""
        try:
            key = parse_profile(self.profile_text(), str(self.profile_path)).key
        except ProfileError:
            key = ""
        return store.feedback.of(key)

    def profile_text(self) -> str:
        """The profile file's text ('' when missing or unreadable as a profile)."""
        try:
            raw = read_bounded(self.profile_path, MAX_PROFILE_BYTES, "profile")
            return decode_profile(raw, str(self.profile_path))
        except (InputFileError, ProfileError):
            return ""

    def login_page(self, request: Request, reason: str, where: str, status: int) -> HTMLResponse:
        """The token page (static words only: nothing of the request is echoed back)."""
        language = self.language()
        html = self.templates.get_template("login.html").render(
            t=labels_for(language),
            ui=web_labels_for(language),
            reason=reason,
            where=where,
            from_env=where.startswith("$"),
            insecure=request.url.scheme != "https" and self.secure_cookies,
        )
        return HTMLResponse(html, status_code=status)

    def render(
        self, request: Request, name: str, status_code: int = 200, **context: Any
    ) -> HTMLResponse:
        template = self.templates.get_template(name)
        html = template.render(
            request=request,
            csrf=request.state.csrf,
            csrf_field=CSRF_FIELD,
            t=labels_for(self.language()),
            ui=web_labels_for(self.language()),
            here=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
            owner=self.reader is None and bool(getattr(request.app.state, "readers", {})),
            reader=self.reader,
            **context,
        )
        return HTMLResponse(html, status_code=status_code)


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _safe_next(target: str) -> str:
    """Only local paths: never redirect to another site."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _site(request: Request) -> Site:
    """The requester's site: a reader's own (``web.readers``), else the owner's."""
    reader = getattr(request.state, "reader", None)
    site: Site = request.app.state.readers[reader] if reader else request.app.state.site
    # (a reader's label only comes from the middleware, which knows only these readers)
    return site


def not_found(request: Request, what: str) -> HTMLResponse:
    return _site(request).render(request, "missing.html", status_code=404, what=what)


async def archive_page(request: Request) -> Response:
    site = _site(request)
    with site.store() as store:
        entries = reading.archive(store)
        states = site.feedback(store).states()
    return site.render(request, "archive.html", entries=entries, states=states)


async def digest_page(request: Request) -> Response:
    site = _site(request)
    day = _day(request.path_params["day"])
    with site.store() as store:
        stored = store.digests.load(day) if day else None
        states = site.feedback(store).states()
        deliveries = store.deliveries.of(day) if day else []
    if stored is None:
        return not_found(request, request.path_params["day"])
    return site.render(
        request,
        "digest.html",
        day=day,
        digest=stored.digest,
        states=states,
        deliveries=deliveries,
    )


async def digest_file(request: Request) -> Response:
    site = _site(request)
    day = _day(request.path_params["day"])
    with site.store() as store:
        stored = store.digests.load(day) if day else None
    if stored is None:
        return not_found(request, request.path_params["day"])
    html = stored.html
    if request.query_params.get("framed") == "1":
        # Inside the digest page's frame, links open in a new tab instead of the frame.
        html = html.replace("<head>", '<head><base target="_blank">', 1)
    # The stored page is our own renderer's output; still, it may run no script at all.
    response = HTMLResponse(html)
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; img-src https: data:; style-src 'unsafe-inline';"
        " frame-ancestors 'self'"
    )
    return response


async def paper_page(request: Request) -> Response:
    site = _site(request)
    paper_id = request.path_params["paper_id"]
    with site.store() as store:
        paper = store.listings.paper(paper_id)
        if paper is None:
            return not_found(request, paper_id)
        # citations link to the paper, untraced claims carry ⚠, as on the digest page
        briefs = [
            (day, annotate_brief(readable(brief), trace))
            for day, brief, trace in store.digests.briefs_of(paper_id)
        ]
        document = store.documents.load(paper_id)
        outline = document_outline(document) if document else None
        history = [e for e in site.feedback(store).for_paper(paper_id) if e.signal.is_button]
        states = site.feedback(store).states(paper_id)
    return site.render(
        request,
        "paper.html",
        paper=paper,
        briefs=briefs,
        outline=outline,
        history=history,
        states=states,
    )


async def ranking_page(request: Request) -> Response:
    """The full ranking of a day, named by its digest date as every route names days
    (``/ranking/<digest date>`` is the ranking behind ``/digest/<digest date>``)."""
    site = _site(request)
    text = request.path_params.get("day") or request.query_params.get("day") or ""
    day = _day(text) if text else None
    if text and day is None:
        return not_found(request, text)
    show_all = request.query_params.get("all") == "1"
    hidden = request.query_params.get("hidden") == "1"  # the papers the reader hid, too
    with site.store() as store:
        ranked = reading.ranking_day(
            store,
            day,
            language=site.language(),
            show_hidden=hidden,
            feedback=site.feedback(store),
        )
        if ranked is None and day is not None and store.rankings.load(day):
            # An older link named the listing day: send it to that day's digest date.
            target = f"/ranking/{reading.digest_date_of(store, day)}"
            return RedirectResponse(target, status_code=301)
        states = site.feedback(store).states()
    if ranked is None and day is not None:
        return not_found(request, day.isoformat())
    rows = (
        ranked.ranking if ranked and show_all else (ranked.ranking[:RANKING_PAGE] if ranked else [])
    )
    return site.render(
        request, "ranking.html", ranked=ranked, rows=rows, show_all=show_all,
        states=states, page_size=RANKING_PAGE,
    )  # fmt: skip


async def search_page(request: Request) -> Response:
    site = _site(request)
    query = request.query_params.get("q", "").strip()[:200]
    papers, digests = [], []
    with site.store() as store:
        if query:
            papers = store.listings.search(query, limit=50)
            digests = store.digests.search(query)
        states = site.feedback(store).states()
    return site.render(
        request,
        "search.html",
        query=query,
        papers=papers,
        digests=digests,
        states=states,
        highlighted=lambda text: reading.highlighted(text, query),
        passage=lambda text: passage(readable(text), query_terms(query), or_start=False),
    )


async def feedback(request: Request) -> Response:
    site = _site(request)
    form = await verified_form(request)
    paper_id = str(form.get("paper_id") or "").strip()
    signal = str(form.get("signal") or "")
    note = str(form.get("note") or "").strip()[:2000] or None
    target = _safe_next(str(form.get("next") or "/"))
    if signal not in BUTTONS or not paper_id:
        return HTMLResponse("unknown feedback signal", status_code=400)
    with site.store() as store:
        if store.listings.paper(paper_id) is None:
            return not_found(request, paper_id)
        # Same path as `paperbrief feedback`: one event in the store's feedback table.
        site.feedback(store).add(paper_id, Signal(signal), note, source="web")
    anchor = "#p-" + quote(paper_id, safe="")
    return RedirectResponse(target.split("#", 1)[0] + anchor, status_code=303)


START_COUNT = 20


async def start_page(request: Request) -> Response:
    """Rate to start: a short selection (``rank.papers_to_rate``) chosen once and kept in
    the address (``?papers=``), so rating one paper does not reshuffle the others; every
    button posts to ``/feedback`` like any other rating and comes back here."""
    site = _site(request)
    ids = [i for i in request.query_params.get("papers", "").split(",") if i][:START_COUNT]
    if not ids:
        chosen = site.papers_to_rate(START_COUNT)
        if not chosen:
            return site.render(request, "start.html", papers=[], states={}, rated=0)
        return RedirectResponse("/start?papers=" + ",".join(chosen), status_code=303)
    with site.store() as store:
        found = store.listings.papers(ids)
        states = site.feedback(store).states()
    papers = [found[i] for i in ids if i in found]
    rated = sum(1 for p in papers if p.id in states and states[p.id].signals)
    return site.render(request, "start.html", papers=papers, states=states, rated=rated)


async def profile_page(request: Request) -> Response:
    """The profile editor: fields for the common settings (``web.profile_form``) beside the
    raw TOML. Protected settings (``profile.PROTECTED``: paths, endpoints, names of secret
    variables, recipients and link, publishing, models and prices) are shown read-only and
    cannot be changed here, by a field or in the text; budgets can only be lowered."""
    site = _site(request)
    path = site.profile_path
    exists = path.is_file()
    current = site.profile_text() if exists else ""
    baseline = current or profile_template()
    text = baseline
    problems: list[ProfileProblem] = []
    profile, saved = None, False
    words = web_labels_for(site.language())
    if request.method == "POST":
        form = await verified_form(request)
        text = str(form.get("text") or "").replace("\r\n", "\n")
        action = str(form.get("action") or "validate")
        fields = {
            key: str(value) for key, value in form.items() if key.startswith(("field.", "shown."))
        }
        text, unreadable = apply_fields(text, fields)
        problems += [ProfileProblem(key, words.field_unreadable, None) for key in unreadable]
    else:
        action = "view"
    try:
        profile = parse_profile(text, str(path))
    except ProfileError as error:
        problems += list(error.problems)
    locked = [
        ProfileProblem(
            item.key,
            (words.ceiling_raised if item.ceiling else words.read_only_changed).format(
                key=item.key, limit=item.before
            ),
            item.line,
        )
        for item in changed_protected(baseline, text)
    ]
    problems += locked
    if action == "save" and profile is not None and not locked:
        write_atomic(path, text)
        exists, saved = True, True
    status = 422 if problems and action != "view" else 200
    protected = protected_values(baseline)
    return site.render(
        request, "profile.html", status_code=status, text=text, problems=problems,
        profile=profile if not problems else None, saved=saved, action=action,
        path=str(path), exists=exists,
        protected=[(key, protected[key]) for key in PROTECTED_KEYS],
        fields=shown_fields(text, baseline), line_groups=line_fields(text),
    )  # fmt: skip


async def owner_page(request: Request) -> Response:
    """Every reader's recent days and spend: the owner's only (a reader gets a 404)."""
    site = _site(request)
    readers = getattr(request.app.state, "readers", {})
    if site.reader is not None or not readers:
        return not_found(request, "/owner")
    with site.store() as store:
        view = owner_view(store, [s.reader for s in readers.values() if s.reader])
    return site.render(request, "owner.html", view=view)


ROUTES = (
    Route("/", archive_page),
    Route("/digest/{day}", digest_page),
    Route("/digest/{day}/file", digest_file),
    Route("/paper/{paper_id:path}", paper_page),
    Route("/ranking", ranking_page),
    Route("/ranking/{day}", ranking_page),
    Route("/search", search_page),
    Route("/feedback", feedback, methods=["POST"]),
    Route("/profile", profile_page, methods=["GET", "POST"]),
    Route("/owner", owner_page),
    Route("/start", start_page),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
)


def create_app(
    store_path: Path,
    profile_path: Path,
    token: str | None = None,
    readers: Sequence[WebReader] = (),
    *,
    secure_cookies: bool = False,
    token_source: str = "",
    token_file: Path | None = None,
) -> Starlette:
    """The web UI over the store at ``store_path`` and the profile file ``profile_path``.

    With ``token`` every request must present it (see ``web.security``); without one the
    app answers loopback hosts only. ``secure_cookies`` marks the cookies ``Secure`` (a bind
    beyond loopback, behind HTTPS); ``token_source`` says on the token page where the
    token comes from; a ``token_file`` (the token kept in the home) is read again when it
    changes (a rotation ends every session at once). The handlers are this module's
    functions; each finds the requester's ``Site`` through ``_site``. With ``readers``
    (which need a token) each reader signs in with ``web.readers.reader_token(token,
    label)`` and sees only their own digests, ranking, feedback and profile; the token's
    holder is the owner (``/owner``).
    """
    if readers and not token:
        raise ValueError("several readers need an access token to tell them apart")
    sites = {r.label: Site(Path(store_path), r.profile_path, secure_cookies, r) for r in readers}
    access = Middleware(
        AccessMiddleware,
        token=token,
        secure=secure_cookies,
        where=token_source,
        token_file=token_file,
        readers=(lambda owner: reader_tokens(owner, sites)) if sites else None,
    )
    app = Starlette(routes=ROUTES, middleware=[access])
    app.state.site = Site(Path(store_path), Path(profile_path), secure_cookies)
    app.state.readers = sites
    return app
