"""Research lines proposed from the reader's own papers: cluster, mine key phrases, name.

``propose_lines(papers, vectors)`` groups the papers by their embeddings (spherical
k-means; the number of groups by silhouette unless given) and gives each group its key
phrases (noun phrases frequent in the group and rare in the rest of the library). Without
an LLM a group's name is its top phrase and its description says its phrases;
``name_lines(llm, ...)`` lets a configured LLM name and describe each group and give it
Chinese key phrases, and what it answers is checked (``checked_name``): an unusable name
keeps the offline one. Deterministic: the same library gives the same lines.

A key phrase is a noun phrase as the papers write it: words within one *chunk* of text
(chunks end at punctuation, brackets, numbers, stop words, common verbs and adverbs, so
"large language models (LLMs)" never yields "language models llms" and "learned at ABB"
never "learned at abb"), ending where some paper's chunk ends (a phrase's head is its last
word: "automated program repair", never "llm-based automated program"). Names are left
out: the part of a title before its colon ("PAFT: …") and words written in mixed case
("PatchRecall", "PITMuS"). A single word must be rare in general writing.

A large library is proposed from an even sample of at most ``MAX_CLUSTERED`` papers
(``even_sample``): clustering is quadratic in memory, and 1,500 papers say what a reader's
lines are as well as 100,000 do.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
from pydantic import BaseModel, Field

from paperbrief import prompts
from paperbrief.library.formats import LibraryPaper, clean_text
from paperbrief.llm import CompletesJSON
from paperbrief.rank.text import STOPWORDS, paper_text, stem
from paperbrief.sources import load_snapshot

MAX_LINES = 5
MIN_SILHOUETTE = 0.04  # below this, one line describes the library better than several
PHRASES_PER_LINE = 8
MAX_CLUSTERED = 1_500  # papers clustered (1,500² similarities: 9 MB); the rest are assigned
# A single word names a topic only when it is rare in general writing: in at most this
# share of the background abstracts ("patch", in 1 % of them, picked a paper on backdoored
# LLMs for a program-repair line).
MAX_WORD_BACKGROUND_SHARE = 0.005
# A phrase in more than this share of them is what everyone writes ("language models").
MAX_PHRASE_BACKGROUND_SHARE = 0.08
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'’][A-Za-z0-9]+)*|\d[\w.,%]*|[^\sA-Za-z0-9]")
_BREAK = re.compile(r"[^\sA-Za-z0-9\-]|\d")
# mixed case inside a word: a name ("PatchRecall", "PITMuS", "ChatGPT"), not a topic
_NAME = re.compile(r"[a-z][A-Z]")
_ADVERB = re.compile(r"(?:ally|ively|ously|edly|ently|antly|ingly)$")
# Verbs by their suffix ("characterize", "optimizes", "summarizing"; "-ized" stays: it
# is an adjective as often as not, "personalized ranking").
_IZE_VERB = re.compile(r"[a-z]{4}iz(?:e|es|ing)$")
# Verbs abstracts use between noun phrases: they end a chunk.
_VERBS = frozenset(
    """arise arises enable enables enabling generate generates generating produce produces
    require requires achieve achieves achieved outperform outperforms outperforming
    leverage leverages leveraging allow allows provide provides providing remain reveal
    reveals suggest suggests yield yields fail fails struggle struggles lead leads help
    helps take takes exhibit exhibits perform performs evaluate evaluates evaluated
    proposes presents introduces demonstrates show shown find finds found learned learn
    learns obtain obtained improved reduce reduces reduced increase increases increased
    apply applies applied employ employs consider considers identify identifies compare
    compared capture captures aim aims focus focuses rely relies ensure ensures conduct
    conducted develop developed design designed build built explore explores investigate
    investigates analyze analyzes analyse analyses release released""".split()  # noqa: SIM905
)
# Words that make a phrase about the paper rather than its topic.
_FILLER = STOPWORDS | {
    "paper", "papers", "framework", "frameworks", "approach", "approaches", "task", "tasks",
    "problem", "problems", "performance", "state-of-the-art", "existing", "recent", "key",
    "significant", "significantly", "effective", "effectively", "improve", "improves",
    "demonstrate", "experiments", "extensive", "introduce", "present", "achieve", "achieves",
    "different", "various", "however", "furthermore", "moreover", "address", "called",
    "remains", "particular", "including", "like", "further", "make", "makes", "real-world",
}  # fmt: skip
# The nouns among them: the words before one modify it, so they are no phrase of their own
# ("comprehensive academic" of "comprehensive academic paper search").
_FILLER_NOUNS = frozenset(
    {"paper", "papers", "framework", "frameworks", "approach", "approaches", "task", "tasks",
     "problem", "problems", "performance", "experiments"}
)  # fmt: skip


@dataclass(frozen=True)
class ProposedLine:
    """One proposed research line and the library papers it was drawn from."""

    name: str
    description: str
    keywords: tuple[str, ...]
    papers: tuple[LibraryPaper, ...]
    keywords_zh: tuple[str, ...] = ()


def even_sample(papers: Sequence[LibraryPaper], limit: int = MAX_CLUSTERED) -> list[LibraryPaper]:
    """At most ``limit`` of ``papers``, spread evenly over the export (its order is the
    reader's: often by date added), the same every time."""
    if len(papers) <= limit:
        return list(papers)
    step = len(papers) / limit
    return [papers[int(i * step)] for i in range(limit)]


# ------------------------------------------------------------------ clustering
def _centers_init(vectors: np.ndarray, k: int) -> np.ndarray:
    """Deterministic seeds: the most central paper, then each time the paper least like
    every seed so far (farthest-first)."""
    similarity = vectors @ vectors.T
    chosen = [int(np.argmax(similarity.mean(axis=1)))]
    while len(chosen) < k:
        closest = similarity[:, chosen].max(axis=1)
        closest[chosen] = np.inf
        chosen.append(int(np.argmin(closest)))
    return vectors[chosen].copy()


def spherical_kmeans(vectors: np.ndarray, k: int, iterations: int = 50) -> np.ndarray:
    """Cluster label per row of unit ``vectors`` (cosine k-means)."""
    centers = _centers_init(vectors, k)
    labels = np.full(len(vectors), -1)
    for _ in range(iterations):
        fresh = np.argmax(vectors @ centers.T, axis=1)
        if np.array_equal(fresh, labels):
            break
        labels = fresh
        for cluster in range(k):
            members = vectors[labels == cluster]
            if len(members):
                center = members.sum(axis=0)
                centers[cluster] = center / max(float(np.linalg.norm(center)), 1e-12)
    return labels


def silhouette(vectors: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette with cosine distance (a singleton scores 0)."""
    distance = 1.0 - vectors @ vectors.T
    clusters = sorted(set(labels.tolist()))
    if len(clusters) < 2:
        return 0.0
    scores = []
    for i, own in enumerate(labels):
        same = (labels == own) & (np.arange(len(labels)) != i)
        if not same.any():
            scores.append(0.0)
            continue
        inside = distance[i, same].mean()
        outside = min(distance[i, labels == c].mean() for c in clusters if c != own)
        scores.append((outside - inside) / max(inside, outside, 1e-12))
    return float(np.mean(scores))


def choose_clusters(vectors: np.ndarray, lines: int | None = None) -> np.ndarray:
    """Labels for the papers: ``lines`` groups if given, else the best by silhouette among
    1..MAX_LINES (at least three papers per group on average)."""
    count = len(vectors)
    if lines is not None:
        return spherical_kmeans(vectors, max(1, min(lines, count)))
    best, best_score = np.zeros(count, dtype=int), MIN_SILHOUETTE
    for k in range(2, min(MAX_LINES, count // 3) + 1):
        labels = spherical_kmeans(vectors, k)
        if np.bincount(labels, minlength=k).min() < 2:
            continue  # a one-paper line is an outlier, not a research line
        score = silhouette(vectors, labels)
        if score > best_score + 1e-9:
            best, best_score = labels, score
    return best


# ------------------------------------------------------------------ key phrases
def _chunks(text: str) -> list[list[str]]:
    """The runs of content words of ``text`` (lower-cased), split at punctuation, numbers,
    stop words, common verbs (and "-ize" ones), adverbs and names; a run that a filler
    noun ends is left out (its words were that noun's modifiers)."""
    chunks: list[list[str]] = []
    run: list[str] = []
    for token in _TOKEN.findall(text):
        word = token.lower().replace("’", "'")
        if word in _FILLER_NOUNS:
            run = []
            continue
        if (
            _BREAK.match(token)
            or word in _FILLER
            or word in _VERBS
            or _IZE_VERB.search(word)
            or _ADVERB.search(word)
            or _NAME.search(token)
        ):
            if run:
                chunks.append(run)
            run = []
            continue
        run.append(word)
    if run:
        chunks.append(run)
    return chunks


def without_title_name(title: str) -> str:
    """A title without the name before its colon ("PAFT: Preservation Aware …" → the rest)."""
    head, colon, rest = title.partition(":")
    return rest if colon and rest.strip() and len(head.split()) <= 4 else title


def _phrases(text: str) -> dict[tuple[str, ...], str]:
    """Candidate phrases of a text (1–3 words of one chunk, ending where a chunk ends, no
    short word last), by stemmed form, with the first surface form seen."""
    found: dict[tuple[str, ...], str] = {}
    for chunk in _chunks(text):
        end = len(chunk)
        for size in (1, 2, 3):
            # every phrase ends at the chunk's end: an English noun phrase's head is last
            gram = chunk[end - size : end] if size <= end else []
            if not gram or len(gram[-1]) < 3 or (size == 1 and len(gram[0]) < 4):
                continue
            found.setdefault(tuple(stem(w) for w in gram), " ".join(gram))
    return found


def _text_of(paper: LibraryPaper) -> str:
    return ". ".join([without_title_name(paper.title), paper.abstract, *paper.keywords])


def _title_of(paper: LibraryPaper) -> str:
    return ". ".join([without_title_name(paper.title), *paper.keywords])


@dataclass(frozen=True)
class Background:
    """How many of a set of general arXiv abstracts contain each phrase: what makes a
    phrase ordinary ("results", "settings") rather than a topic."""

    documents: int
    frequency: Counter[tuple[str, ...]]


@functools.cache
def sample_background() -> Background:
    """Phrase frequencies of the bundled sample day (480 abstracts in cs.AI/CL/LG/SE),
    counted once per process: the same for every call, and callers only read them."""
    sample = resources.files("paperbrief") / "data" / "sample" / "2026-05-22.jsonl.gz"
    with resources.as_file(sample) as path:
        papers = load_snapshot(path).papers
    frequency: Counter[tuple[str, ...]] = Counter()
    for paper in papers:
        frequency.update(_phrases(paper_text(paper)).keys())
    return Background(len(papers), frequency)


def key_phrases(
    group: Sequence[LibraryPaper],
    library: Sequence[LibraryPaper],
    background: Background,
    limit: int = PHRASES_PER_LINE,
    need: int | None = None,
) -> list[str]:
    """Phrases frequent in ``group``, rare in general (``background``) and mostly found in
    this group of the ``library`` (a c-TF-IDF: group share × inverse background frequency
    × share of the library's occurrences in the group; longer phrases preferred), without
    phrases contained in a better one or pieces of a phrase with it. A phrase must be in
    ``need`` papers of the group (default two, one in a group of one or two); a group whose
    papers share too few phrases is topped up with phrases of one paper each."""
    surface: dict[tuple[str, ...], Counter[str]] = {}
    inside: Counter[tuple[str, ...]] = Counter()
    titled: Counter[tuple[str, ...]] = Counter()  # phrases of titles and tags: more topical
    for paper in group:
        for key, form in _phrases(_text_of(paper)).items():
            inside[key] += 1
            surface.setdefault(key, Counter())[form] += 1
        titled.update(_phrases(_title_of(paper)).keys())
    everywhere: Counter[tuple[str, ...]] = Counter()
    for paper in library:
        everywhere.update(_phrases(_text_of(paper)).keys())
    strict = need is None
    need = need or (2 if len(group) >= 3 else 1)
    scored = []
    for key, count in inside.items():
        share = count / len(group)
        if count < need or (len(key) == 1 and (share < 0.4 or not titled[key])):
            continue  # a single word must be common in the group and in a title
        if len(key) == 1 and background.frequency[key] > MAX_WORD_BACKGROUND_SHARE * max(
            background.documents, 1
        ):
            continue  # and rare in general writing, or it matches other fields' papers
        if background.frequency[key] > MAX_PHRASE_BACKGROUND_SHARE * background.documents:
            continue
        rarity = math.log((background.documents + 1) / (background.frequency[key] + 1))
        focus = count / max(everywhere[key], count)
        title_share = titled[key] / len(group)
        score = (share + title_share) * rarity * focus * (1.0, 2.0, 2.5)[len(key) - 1]
        scored.append((-score, " ".join(key), key))
    chosen: list[tuple[str, ...]] = []
    for _, _, key in sorted(scored):
        text = " " + " ".join(key) + " "
        inner = [c for c in chosen if " " + " ".join(c) + " " in text]
        if any(text in " " + " ".join(c) + " " for c in chosen):
            continue  # a better phrase already says it
        if any(merged in inside for c in chosen for merged in _joined(key, c)):
            continue  # "cloud data" beside "point cloud": a piece of "point cloud data"
        if inner:
            # "multivariate time series" over "time series" when it is nearly as common
            if all(inside[key] >= 0.6 * inside[c] for c in inner):
                chosen = [key if c == inner[0] else c for c in chosen if c not in inner[1:]]
            continue
        chosen.append(key)
        if len(chosen) >= limit:
            break
    found = [surface[key].most_common(1)[0][0] for key in chosen]
    if strict and need > 1 and len(found) < 3:
        more = key_phrases(group, library, background, limit, need=1)
        found += [p for p in more if not any(p in f or f in p for f in found)]
    return found[:limit]


def _joined(one: tuple[str, ...], other: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The longer phrases two phrases would be pieces of, where the end of one is the start
    of the other ("point cloud" and "cloud data": "point cloud data"); the caller keeps
    the pair apart unless the papers write the longer one ("candidate patches" and "patch
    generation" are two topics)."""
    joined = []
    for n in range(1, min(len(one), len(other))):
        if one[-n:] == other[:n]:
            joined.append(one + other[n:])
        if other[-n:] == one[:n]:
            joined.append(other + one[n:])
    return joined


def _central(group: Sequence[LibraryPaper], vectors: np.ndarray) -> list[LibraryPaper]:
    """The group's papers, the most typical first (the profile's comment shows the first)."""
    center = vectors.sum(axis=0)
    order = np.argsort(-(vectors @ center), kind="stable")
    return [group[i] for i in order]


def _offline_name(phrases: Sequence[str], taken: set[str]) -> str:
    """The top phrase, with the next one that shares no word with it ("Automated program
    repair and fault localization", not "… and program repair")."""
    if not phrases:
        return f"Line {len(taken) + 1}"
    first = phrases[0]
    others = [p for p in phrases[1:] if not set(p.split()) & set(first.split())]
    for parts in ([first, *others[:1]], [first, *others[1:2]], [first]):
        name = " and ".join(parts)
        name = name[:1].upper() + name[1:]
        if name not in taken:
            return name
    return f"{first[:1].upper() + first[1:]} {len(taken) + 1}"


def _offline_description(phrases: Sequence[str]) -> str:
    """What the line is about, in its own phrases (no paper's name or title)."""
    if not phrases:
        return "Papers like the ones this line was drawn from (edit this description)."
    listed = list(phrases[:5])
    topics = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    return f"Work on {topics}."


def propose_lines(
    papers: Sequence[LibraryPaper], vectors: np.ndarray, lines: int | None = None
) -> list[ProposedLine]:
    """Research lines from the papers and their unit embedding ``vectors`` (one row each),
    largest group first."""
    labels = choose_clusters(vectors, lines)
    background = sample_background()
    groups = sorted(set(labels.tolist()), key=lambda c: (-int((labels == c).sum()), c))
    proposed: list[ProposedLine] = []
    taken: set[str] = set()
    for cluster in groups:
        members = [i for i in range(len(papers)) if labels[i] == cluster]
        group = [papers[i] for i in members]
        phrases = key_phrases(group, papers, background)
        central = _central(group, vectors[members])
        name = _offline_name(phrases, taken)
        taken.add(name)
        description = _offline_description(phrases)
        proposed.append(ProposedLine(name, description, tuple(phrases), tuple(central)))
    return proposed


# ------------------------------------------------------------------ the LLM's names
class NamedLine(BaseModel):
    key: str = Field(description="The group key given.")
    name: str = Field(description="Short name of the research line.")
    description: str = Field(description="Two or three sentences in English.")
    keywords: list[str] = Field(default_factory=list, description="English key phrases.")
    keywords_zh: list[str] = Field(default_factory=list, description="Chinese key phrases.")


class NamedLines(BaseModel):
    lines: list[NamedLine]


def name_lines(
    llm: CompletesJSON, proposed: Sequence[ProposedLine], language: str = "zh"
) -> list[ProposedLine]:
    """Each line named, described and given Chinese key phrases by the LLM; a line the
    answer leaves out keeps its offline name. The papers' text is delimited as untrusted."""
    groups = []
    for number, line in enumerate(proposed, 1):
        titles = "\n".join(f"- {prompts.defuse(p.title)}" for p in line.papers[:12] if p.title)
        phrases = prompts.defuse(", ".join(line.keywords))
        groups.append(f'<paper key="g{number}">\nKey phrases: {phrases}\n{titles}\n</paper>')
    system = prompts.load("profile_lines").substitute(
        language=prompts.LANGUAGE_NAMES.get(language, language)
    )
    answer = llm.complete_json(
        "profile",
        [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(groups)}],
        NamedLines,
    )
    by_key = {line.key: line for line in answer.lines}
    named: list[ProposedLine] = []
    taken: set[str] = set()
    for number, line in enumerate(proposed, 1):
        got = checked_name(by_key.get(f"g{number}"), taken)
        if got is None:
            named.append(line)  # the offline proposal stands for this line
            taken.add(line.name)
            continue
        keywords = tuple(dict.fromkeys([*got.keywords, *line.keywords]))[:12]
        named.append(
            ProposedLine(
                name=got.name,
                description=got.description or line.description,
                keywords=keywords,
                papers=line.papers,
                keywords_zh=tuple(got.keywords_zh[:8]),
            )
        )
        taken.add(got.name)
    return named


MAX_NAME = 80
MAX_DESCRIPTION = 600
MAX_PHRASE = 60


def checked_name(got: NamedLine | None, taken: set[str]) -> NamedLine | None:
    """The LLM's line as a profile can hold it, or None (keep the offline line): control
    characters removed, a name of 3–80 characters on one line not already taken, a
    description of at most 600, phrases of at most 60 (longer ones dropped)."""
    if got is None:
        return None
    name = clean_text(got.name)
    if not 3 <= len(name) <= MAX_NAME or name in taken:
        return None
    description = clean_text(got.description)
    if len(description) > MAX_DESCRIPTION:
        description = ""  # a rambling answer: the offline description is better

    def phrases(values: list[str]) -> list[str]:
        kept = (clean_text(v) for v in values)
        return [v for v in dict.fromkeys(kept) if 2 <= len(v) <= MAX_PHRASE]

    return NamedLine(
        key=got.key,
        name=name,
        description=description,
        keywords=phrases(got.keywords),
        keywords_zh=phrases(got.keywords_zh),
    )
