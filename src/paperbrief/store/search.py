"""Full-text search: two SQLite FTS5 indexes (papers; digests) and the one query grammar.

FTS5's tokenizers cut Chinese into whole runs ("程序修复" is one token), so neither the
index nor a query could find "修复" inside it. Here every CJK character becomes its own
token before text reaches FTS5 (``search_text``), and a CJK run in a query becomes a phrase
of single characters (``match_query``): "修复" matches those two characters in a row,
anywhere. Latin text goes through the porter stemmer ("repairs" finds "repair").

Query grammar (``match_query``): words are ANDed; "double quotes" make a phrase; a trailing
``*`` makes a prefix (``agent*``); everything else FTS5 would read as syntax is dropped, so
no user text is ever an FTS5 expression.
"""

from __future__ import annotations

import re
import sqlite3

from paperbrief.text import cjk

TOKENIZER = "porter unicode61 remove_diacritics 2"
# Each CJK letter (ideographs, kana, hangul; not punctuation) is its own token.
_CJK = re.compile(f"([{cjk.LETTERS}])")
_TERM = re.compile(r'"([^"]*)"|(\S+)')
_WORD = re.compile(rf"[\w{cjk.LETTERS}]+\*?")


def search_text(text: str) -> str:
    """``text`` as indexed: each CJK character spaced out as its own token."""
    return _CJK.sub(r" \1 ", text)


def _quoted(words: list[str], prefix: bool) -> str:
    return '"' + " ".join(w.replace('"', "") for w in words) + '"' + ("*" if prefix else "")


def match_query(query: str) -> str | None:
    """The FTS5 MATCH expression for a user's query, or None when nothing searchable is left."""
    parts: list[str] = []
    for phrase, word in _TERM.findall(query):
        raw = phrase if phrase else word
        prefix = not phrase and raw.endswith("*")
        tokens = [t.rstrip("*") for t in _WORD.findall(search_text(raw))]
        tokens = [t for t in tokens if t]
        if not tokens:
            continue
        parts.append(_quoted(tokens, prefix))  # several tokens ("修 复") make a phrase
    return " ".join(parts) or None


def create_indexes(db: sqlite3.Connection) -> None:
    """The two FTS5 tables, filled from what the store already holds (migration)."""
    db.execute(
        f"CREATE VIRTUAL TABLE papers_fts USING fts5(paper_id UNINDEXED, title, abstract,"
        f" tokenize='{TOKENIZER}')"
    )
    db.execute(
        f"CREATE VIRTUAL TABLE digests_fts USING fts5(profile UNINDEXED, digest_date UNINDEXED,"
        f" language UNINDEXED, title, body, tokenize='{TOKENIZER}')"
    )
    for row in db.execute("SELECT id, title, abstract FROM papers").fetchall():
        index_paper(db, row[0], row[1], row[2])
    digests = "SELECT profile, digest_date, language, title, markdown FROM digests"
    for row in db.execute(digests).fetchall():
        index_digest(db, row[0], row[1], row[2], row[3], row[4])


def index_paper(db: sqlite3.Connection, paper_id: str, title: str, abstract: str) -> None:
    """(Re)index one paper (already in ``papers``), inside the caller's transaction.

    Its index row has the paper's own rowid: ``paper_id`` is UNINDEXED, so finding the old
    row by it would scan the whole index for every paper saved (a year of listings took
    minutes per day; ``benchmarks/lab_bench.py --year``).
    """
    row = db.execute("SELECT rowid FROM papers WHERE id=?", (paper_id,)).fetchone()
    if row is None:
        return
    db.execute("DELETE FROM papers_fts WHERE rowid=?", (row[0],))
    db.execute(
        "INSERT INTO papers_fts (rowid, paper_id, title, abstract) VALUES (?,?,?,?)",
        (row[0], paper_id, search_text(title), search_text(abstract)),
    )


def reindex_papers(db: sqlite3.Connection) -> None:
    """Rebuild the papers' index with each row at its paper's rowid (migration m008)."""
    db.execute("DELETE FROM papers_fts")
    for row in db.execute("SELECT id, title, abstract FROM papers").fetchall():
        index_paper(db, row[0], row[1], row[2])


def index_digest(
    db: sqlite3.Connection,
    profile: str,
    digest_date: str,
    language: str,
    title: str,
    markdown: str,
) -> None:
    """(Re)index one profile's digest, inside the caller's transaction."""
    db.execute(
        "DELETE FROM digests_fts WHERE profile=? AND digest_date=? AND language=?",
        (profile, digest_date, language),
    )
    db.execute(
        "INSERT INTO digests_fts (profile, digest_date, language, title, body) VALUES (?,?,?,?,?)",
        (profile, digest_date, language, search_text(title), search_text(markdown)),
    )


def adopt_unnamed_digests(db: sqlite3.Connection, profile: str) -> None:
    """Index rows of digests made before profiles were kept now belong to ``profile``
    (``Store.adopt_unnamed``; run before the digests themselves move, with the same rule:
    a day ``profile`` already has keeps its own row)."""
    db.execute(
        "UPDATE digests_fts SET profile=? WHERE profile='' AND NOT EXISTS (SELECT 1 FROM"
        " digests d WHERE d.profile=? AND d.digest_date=digests_fts.digest_date"
        " AND d.language=digests_fts.language)",
        (profile, profile),
    )


_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_READABLE = (
    (re.compile(r"<[^>\n]*>"), " "),  # HTML tags
    (re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)"), r"\1"),  # links and images: their text
    (re.compile(r"^\s*\|?[\s|:-]*-[\s|:-]*$", re.M), " "),  # a table's rule line
    (re.compile(r"^\s{0,3}(?:#{1,6}|>|[-*+]|\d+\.)\s+", re.M), ""),  # block markers
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>$~])"), r"\1"),  # backslash escapes
    (re.compile(r"[*_`~|]+"), " "),  # emphasis, code and table pipes
    (re.compile(r"\s+"), " "),
)


def readable_text(markdown: str) -> str:
    """A digest's Markdown as the words a reader sees: no front matter, no markup (the
    passage a search hit shows)."""
    text = _FRONT_MATTER.sub("", markdown.replace("\r\n", "\n"), count=1)
    for pattern, replacement in _READABLE:
        text = pattern.sub(replacement, text)
    return text.strip()


SNIPPET_CONTEXT = 60  # characters shown each side of a search hit


def passage(text: str, terms: list[str], *, or_start: bool = True) -> str:
    """The passage of plain ``text`` around the first query term found (case-insensitive;
    stems may not be found literally: then the text's start, or "" without ``or_start``),
    on one line."""
    folded = text.casefold()
    found = [(folded.find(t.casefold()), t) for t in terms]
    hits = [(position, term) for position, term in found if position >= 0]
    if not hits and not or_start:
        return ""
    position, term = min(hits) if hits else (0, "")
    start = max(position - SNIPPET_CONTEXT, 0)
    return " ".join(text[start : position + len(term) + SNIPPET_CONTEXT].split())


def query_terms(query: str) -> list[str]:
    """The plain words and characters of a query, to find a passage to show (snippets)."""
    terms = []
    for phrase, word in _TERM.findall(query):
        raw = (phrase or word).rstrip("*")
        if raw:
            terms.append(raw)
    return terms
