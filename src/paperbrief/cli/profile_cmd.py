"""`paperbrief profile init|check`."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from paperbrief.cli.common import (
    PaperbriefGroup,
    console,
    get_store,
    profile_option,
    resolve_profile_path,
    terminal_text,
)
from paperbrief.environment import named_variables, warnings
from paperbrief.errors import PaperbriefError, ProfileError
from paperbrief.files import write_atomic
from paperbrief.profile import (
    GUESSED_MARK,
    LANGUAGES,
    TEMPLATE_NAME,
    LLMSettings,
    load_profile,
    parse_profile,
    profile_template,
    read_profile_text,
)


@click.group(cls=PaperbriefGroup, short_help="Create and validate the profile.")
def profile() -> None:
    """Create and validate the profile (research lines, categories, output settings)."""


@profile.command("init", short_help="Write a profile: a template, or from your papers.")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False), required=False)
@click.option(
    "--from",
    "library_path",
    type=click.Path(path_type=Path),
    help="Propose research lines from your papers: a BibTeX, CSL JSON or RIS export"
    " (Zotero), a list of arXiv ids, a folder of PDFs, or your Zotero library itself"
    " (zotero:users/ID[?collection=NAME&exclude=NAME], key in $ZOTERO_API_KEY).",
)
@click.option("--name", help="Who it is for (else the file says 'Your Name' for you to edit).")
@click.option("--lines", type=click.IntRange(1, 12), help="How many lines (default: chosen).")
@click.option("--category", "categories", multiple=True, help="arXiv category to read; repeatable.")
@click.option("--language", type=click.Choice(LANGUAGES), default="zh", show_default=True)
@click.option("--offline", is_flag=True, help="Ask neither arXiv nor an LLM.")
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def init(
    path: Path | None,
    library_path: Path | None,
    name: str | None,
    lines: int | None,
    categories: tuple[str, ...],
    language: str,
    offline: bool,
    force: bool,
) -> None:
    """Write a profile to PATH (or print it): a commented template, or with --from FILE
    research lines proposed from your own papers, for you to edit.

    With --from the papers are grouped by topic; each group becomes a line with its key
    phrases. Bare arXiv ids get their titles from arXiv (unless --offline). When an LLM
    endpoint is configured (PAPERBRIEF_LLM_BASE_URL / _API_KEY) it names and describes
    each line and adds Chinese key phrases.
    """
    if path is not None and path.exists() and not force:
        raise ProfileError(f"{path} already exists", "pass --force to overwrite it")
    if library_path is None:
        text = profile_template()
    else:
        text = _proposed_profile(library_path, name, lines, categories, language, offline)
    if path is None:
        click.echo(text, nl=False)
        return
    write_atomic(path, text)
    console.print(f"wrote {path}; edit it, then run `paperbrief profile check --profile {path}`")
    if library_path is not None and name is None:
        console.print(f"[yellow]note:[/] put your name in `name` (it says {TEMPLATE_NAME!r})")


def _proposed_profile(
    library_path: Path,
    name: str | None,
    lines: int | None,
    categories: tuple[str, ...],
    language: str,
    offline: bool,
) -> str:
    # Imported here: a template or `profile check` needs neither the services nor numpy.
    from paperbrief.cli.library_io import load_library
    from paperbrief.library import (
        choose_categories,
        even_sample,
        name_lines,
        profile_toml,
        propose_lines,
    )
    from paperbrief.services import Services

    with (
        get_store() as store,
        Services.build(None, store, offline=offline, llm_settings=LLMSettings()) as services,
    ):
        papers = load_library(library_path, store, services)
        sample = even_sample(papers)
        if len(sample) < len(papers):
            console.print(
                f"[dim]note:[/] the lines are proposed from an even sample of {len(sample):,}"
                f" of the {len(papers):,} papers",
                highlight=False,
            )
        with console.status(f"grouping {len(sample):,} papers …"):
            vectors = services.embedder.embed([paper.text for paper in sample])
            proposed = propose_lines(sample, vectors, lines)
        if services.llm is not None:
            try:
                with console.status("naming the lines …"):
                    proposed = name_lines(services.llm, proposed, language)
            except PaperbriefError as error:
                console.print(f"[dim]note:[/] the LLM could not name the lines: {error.message}")
        choice = choose_categories(papers, categories, vectors, services.embedder.embed)
    guessed = choice.why if choice.guessed else ""
    chosen = choice.categories
    text = profile_toml(
        name or TEMPLATE_NAME, language, chosen, proposed, library_path.name, guessed
    )
    # A proposal must load as it stands, but for the name only the reader can give.
    checked = text if name else profile_toml("Reader", language, chosen, proposed, "", guessed)
    try:
        parse_profile(checked, "the proposed profile")
    except ProfileError as error:  # the proposal is ours: nothing for the reader to edit
        raise PaperbriefError(
            f"the profile proposed from {library_path.name} is not valid: {error.message}",
            "nothing was written; this is a bug in paperbrief: please report it with the"
            " export (or pass --lines / --category to work around it)",
        ) from error
    if choice.guessed:
        console.print(
            f"[bold yellow]warning:[/] categories {escape(', '.join(chosen))} are a guess"
            f" ({escape(choice.why)}): list the arXiv categories you read in the profile",
            highlight=False,
            important=True,
        )
    for line in proposed:
        console.print(
            f"  {escape(line.name)} [dim]({len(line.papers)} papers:"
            f" {escape(', '.join(line.keywords[:4]))})[/]",
            highlight=False,
        )
    return text


@profile.command("check")
@profile_option
def check(profile_path: Path | None) -> None:
    """Validate the profile; every problem names its key and the fix.

    Also lists the environment variables the profile names (set or not, never their
    values) and warns about settings that will not work as written.
    """
    path = resolve_profile_path(profile_path)
    loaded = load_profile(path)
    lines = ", ".join(line.name for line in loaded.research_lines)
    click.echo(
        terminal_text(
            f"{path}: OK — {loaded.name}, {len(loaded.research_lines)} research lines"
            f" ({lines}), categories {', '.join(loaded.all_categories)}, language"
            f" {loaded.language}, time zone {loaded.timezone}"
        )
    )
    click.echo("environment variables:")
    for variable in named_variables(loaded):
        state = "set" if variable.is_set else ("unset" if variable.needed else "unset (optional)")
        click.echo(terminal_text(f"  {variable.name}: {state} — {variable.purpose}"))
    notes = warnings(loaded)
    if any(
        line.lstrip().startswith("categories") and GUESSED_MARK in line
        for line in read_profile_text(path).splitlines()
    ):
        notes.append(
            f"categories {', '.join(loaded.categories)} were guessed when the profile was"
            " proposed: check them, then delete the GUESSED comment"
        )
    for warning in notes:
        console.print(
            f"[yellow]warning:[/] {escape(terminal_text(warning))}", highlight=False, important=True
        )


COMMANDS: list[click.Command] = [profile]
