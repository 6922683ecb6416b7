"""Render a Digest as the blog post: YAML front matter + Markdown, as in digest-format.md.

Paper text is untrusted: every piece of it is escaped so it cannot open HTML tags, links,
images or table cells in the blog's Markdown renderer. What the model writes renders as
written (``rich.py``): its paragraphs and lists stay paragraphs and lists, ``**bold**`` and
`` `code` `` pass, everything else (``$`` included, for blogs with math) is escaped.
"""

from __future__ import annotations

from urllib.parse import quote

import yaml

from paperbrief.labels import Labels, labels_for, stars_text
from paperbrief.models import OFFLINE_WRITER, ComparisonTable, Digest, PaperBrief, TableData
from paperbrief.profile import Profile
from paperbrief.profile_checks import FRONT_MATTER_KEY
from paperbrief.render.clean import readable
from paperbrief.render.links import annotate
from paperbrief.render.rich import (
    escape_md,
    markdown_blocks,
    markdown_inline,
    markdown_item,
    plain,
)

MAX_AUTHORS = 5


def _url(url: str) -> str:
    """Only http(s) URLs pass; spaces, parentheses, quotes and angle brackets are encoded."""
    if not url.startswith(("https://", "http://")):
        return ""
    return quote(url, safe=":/?#[]@!$&*+,;=%~-._")


def front_matter(digest: Digest, profile: Profile) -> dict[str, object]:
    """The configurable front matter, in key order the blog expects (``date`` a date: YAML
    writes it as one, unquoted)."""
    output = profile.output
    data: dict[str, object] = {
        "title": digest.title,
        "date": digest.digest_date,
        "description": digest.description,
        "tags": list(output.tags),
        "series": output.series,
    }
    data.update(output.extra_front_matter)
    data.update(digest.front_matter)
    return data


class _FrontMatterDumper(yaml.SafeDumper):
    """PyYAML's safe dumper, writing every string double-quoted (escapes for line breaks
    and controls: no value can end the front matter early or span a line) and a key that
    is a plain name plain."""


def _string(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')


def _mapping(dumper: yaml.SafeDumper, data: dict[object, object]) -> yaml.MappingNode:
    node = dumper.represent_dict(data)
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and FRONT_MATTER_KEY.fullmatch(key.value):
            key.style = None  # a plain name needs no quotes
    return node


def _sequence(dumper: yaml.SafeDumper, items: list[object]) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=True)


_FrontMatterDumper.add_representer(str, _string)
_FrontMatterDumper.add_representer(dict, _mapping)
_FrontMatterDumper.add_representer(list, _sequence)


def _yaml(data: dict[str, object]) -> str:
    """The front matter block, keys and values serialised by PyYAML (``_FrontMatterDumper``).

    Every string is double-quoted, so angle brackets can be written as ``\\u003c`` /
    ``\\u003e`` (a theme that prints a value raw still shows no tag); the block is checked
    to read back as exactly ``data``."""
    text = yaml.dump(
        data,
        Dumper=_FrontMatterDumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=None,
        width=2**31 - 1,
    )
    text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    if yaml.safe_load(text) != data:  # an invariant of the dumper, not of the input
        raise ValueError("the front matter does not read back as written")
    return f"---\n{text}---"


def _cell(text: str) -> str:
    return markdown_inline(text, in_table=True)


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    width = len(header)
    out = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * width]
    for row in rows:
        cells = [_cell(c) for c in row] + [""] * (width - len(row))
        out.append("| " + " | ".join(cells[:width]) + " |")
    return "\n".join(out)


def compact(table: TableData) -> TableData:
    """The table without columns that are empty in every body row (an unused "变化" column
    only narrows the others on a phone)."""
    width = len(table.header)
    keep = [c for c in range(width) if any(c < len(r) and r[c].strip() for r in table.rows)]
    if len(keep) == width or not keep:
        return table
    return TableData(
        header=tuple(table.header[c] for c in keep),
        rows=tuple(tuple(r[c] if c < len(r) else "" for c in keep) for r in table.rows),
        caption=table.caption,
    )


def _table_md(table: TableData) -> str:
    table = compact(table)
    body = _table(table.header, list(table.rows))
    return (f"*{escape_md(table.caption)}*\n\n" if table.caption else "") + body


def _overview(digest: Digest, labels: Labels) -> str:
    header = (
        labels.col_paper,
        labels.col_direction,
        labels.col_contribution,
        labels.col_relevance,
    )
    lines = ["| " + " | ".join(header) + " |", "|---|---|---|---|"]
    for brief in digest.briefs:
        paper = brief.paper
        lines.append(
            f"| [{escape_md(paper.title)}]({_url(paper.abs_url)}) | {_cell(brief.direction)}"
            f" | {_cell(brief.contribution)} | {stars_text(brief.scored.stars)} |"
        )
    return "\n".join(lines)


def _info_line(brief: PaperBrief, labels: Labels) -> str:
    paper = brief.paper
    authors = ", ".join(escape_md(a) for a in paper.authors[:MAX_AUTHORS])
    if len(paper.authors) > MAX_AUTHORS:
        authors += f" {labels.et_al}"
    categories = ", ".join(escape_md(c) for c in paper.categories)
    link = f"[arXiv:{escape_md(paper.id)}]({_url(paper.abs_url)})"
    return f"📌 **{labels.info}**{labels.colon}{authors} | {link} | {categories}"


def _label(label: str, labels: Labels) -> str:
    return f"**{label}**{labels.colon}"


def _brief(brief: PaperBrief, labels: Labels) -> list[str]:
    out = [f"### {escape_md(brief.paper.title)}", ""]
    reason = markdown_blocks(brief.reason, _label(labels.reason, labels))
    out += [f"> {line}" if line else ">" for line in reason] + [""]
    out += [_info_line(brief, labels), ""]
    figure_url = _url(brief.figure.url) if brief.figure else ""
    if brief.figure and figure_url:
        out += [f"![{escape_md(plain(brief.figure.caption))}]({figure_url})", ""]
    for note in brief.notes:
        out += [f"*{escape_md(note)}*", ""]
    if brief.tldr:
        out += [f"#### {labels.tldr}", "", *markdown_blocks(brief.tldr), ""]
    if brief.problem:
        out += [f"#### {labels.problem}", "", *markdown_blocks(brief.problem), ""]
    if brief.insight or brief.steps or brief.difference or brief.method:
        out += [f"#### {labels.method}", ""]
        if brief.insight:
            out += [*markdown_blocks(brief.insight, _label(labels.insight, labels)), ""]
        if brief.method:
            out += [*markdown_blocks(brief.method), ""]
        if brief.steps:
            for n, step in enumerate(brief.steps, 1):
                out += markdown_item(step, f"{n}.")
            out += [""]
        if brief.difference:
            out += [*markdown_blocks(brief.difference, _label(labels.difference, labels)), ""]
    numbers_only = [n for n in brief.reported_numbers if n not in brief.result_notes]
    if brief.results or brief.result_notes or numbers_only:
        out += [f"#### {labels.results}", ""]
        if brief.results:
            out += [_table_md(brief.results), ""]
        if brief.result_notes:
            out += [f"**{labels.result_notes}**{labels.colon.rstrip()}", ""]
            for note in brief.result_notes:
                out += markdown_item(note, "-")
            out += [""]
        if numbers_only:
            out += [f"**{labels.reported_numbers}**{labels.colon.rstrip()}", ""]
            for sentence in numbers_only:
                out += markdown_item(sentence, "-")
            out += [""]
    if brief.limitations or brief.open_questions:
        out += [f"#### {labels.limitations}", ""]
        for n, limitation in enumerate(brief.limitations, 1):
            out += markdown_item(limitation, "-", _label(labels.limitation_n.format(n=n), labels))
        for question in brief.open_questions:
            out += markdown_item(question, "-", _label(labels.open_question, labels))
        out.append("")
    implications = brief.implications
    if implications and (implications.technique or implications.experiment or implications.trend):
        out += [f"#### {labels.implications}", ""]
        items = [
            (labels.technique, implications.technique),
            (labels.experiment, implications.experiment),
            (labels.trend, implications.trend),
        ]
        number = 1
        for label, text in items:
            if text:
                out += markdown_item(text, f"{number}.", _label(label, labels))
                number += 1
        out.append("")
    out += ["---", ""]
    return out


def _comparison(table: ComparisonTable, labels: Labels) -> str:
    header = (labels.dimension, *table.columns)
    rows = [(dimension, *cells) for dimension, cells in table.rows]
    title = f"*{escape_md(table.title)}*\n\n" if table.title else ""
    return title + _table(header, rows)


def _provenance(digest: Digest, labels: Labels) -> list[str]:
    prov = digest.provenance
    if prov is None:
        return []
    lines = [f"#### {labels.provenance}", ""]
    lines += [f"- {escape_md(note)}" for note in prov.notes]
    sources = labels.separator.join(
        f"{pid}{labels.colon}{labels.source_name(source)}" for pid, source in prov.sources.items()
    )
    if sources:
        lines.append(f"- {labels.source_label}{labels.colon}{escape_md(sources)}")
    if prov.writer != OFFLINE_WRITER:
        parts = (
            f"{labels.model}{labels.colon}{escape_md(prov.writer)}",
            f"{labels.tokens}{labels.colon}{prov.prompt_tokens} + {prov.completion_tokens}",
            f"{labels.cost}{labels.colon}\\${prov.cost:.4f}",
        )
        lines.append("- " + labels.separator.join(parts))
    if digest.papers_considered:
        lines.append(f"- {labels.papers_considered}{labels.colon}{digest.papers_considered}")
    return lines + [""]


def render_markdown(digest: Digest, profile: Profile) -> str:
    """The complete blog post for ``digest`` (citations as links to the paper, ⚠ after
    every claim that was not traced)."""
    digest = annotate(readable(digest))
    labels = labels_for(digest.language)
    out = [_yaml(front_matter(digest, profile)), "", f"# {escape_md(digest.title)}", ""]
    if digest.summary:
        out += [f"## {labels.summary}", "", *markdown_blocks(digest.summary), ""]
    out += [f"## {labels.overview}", "", _overview(digest, labels), ""]
    if digest.theme:
        title = markdown_inline(digest.theme_title)
        out += [f"## {labels.theme}{labels.colon}{title}".rstrip("：: "), ""]
        out += [*markdown_blocks(digest.theme), ""]
    out += ["---", ""]
    for brief in digest.briefs:
        out += _brief(brief, labels)
    if digest.comparisons:
        out += [f"## {labels.comparison}", ""]
        for table in digest.comparisons:
            out += [_comparison(table, labels), ""]
    if digest.closing:
        out += [*markdown_blocks(digest.closing), ""]
    out += _provenance(digest, labels)
    return "\n".join(out).rstrip() + "\n"
