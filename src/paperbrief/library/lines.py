"""Research lines proposed from the reader's own papers: cluster, mine key phrases, name.

``propose_lines(papers, vectors)`` groups the papers by their embeddings (spherical
k-means; the number of groups by silhouette unless given) and gives each group its key
phrases (word n-grams frequent in the group and rare in the rest of the library). Without
an LLM a group's name is its top phrases and its description lists them with the group's
representative titles; ``name_lines(llm, ...)`` lets a configured LLM name and describe each
group and give it Chinese key phrases. Deterministic: the same library gives the same lines.
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
from paperbrief.library.formats import LibraryPaper
from paperbrief.llm import CompletesJSON
from paperbrief.rank.text import STOPWORDS, paper_text, stem
from paperbrief.sources import load_snapshot

MAX_LINES = 5
MIN_SILHOUETTE = 0.04  # below this, one line describes the library better than several
PHRASES_PER_LINE = 8
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# Words that make a phrase about the paper rather than its topic.
_FILLER = STOPWORDS | {
    "paper", "papers", "framework", "frameworks", "approach", "approaches", "task", "tasks",
    "problem", "problems", "performance", "state-of-the-art", "existing", "recent", "key",
    "significant", "significantly", "effective", "effectively", "improve", "improves",
    "demonstrate", "experiments", "extensive", "introduce", "present", "achieve", "achieves",
    "different", "various", "however", "furthermore", "moreover", "address", "called",
    "remains", "particular", "including", "like", "further", "make", "makes", "real-world",
}  # fmt: skip


@dataclass(frozen=True)
class ProposedLine:
    """One proposed research line and the library papers it was drawn from."""

    name: str
    description: str
    keywords: tuple[str, ...]
    papers: tuple[LibraryPaper, ...]
    keywords_zh: tuple[str, ...] = ()


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
def _phrases(text: str) -> dict[tuple[str, ...], str]:
    """Candidate phrases of a text (1–3 words, no filler at either end), by stemmed form,
    with the first surface form seen."""
    words = _WORD.findall(text.lower())
    found: dict[tuple[str, ...], str] = {}
    for size in (1, 2, 3):
        for start in range(len(words) - size + 1):
            gram = words[start : start + size]
            if gram[0] in _FILLER or gram[-1] in _FILLER or len(gram[-1]) < 3:
                continue
            if size == 1 and len(gram[0]) < 4:
                continue
            found.setdefault(tuple(stem(w) for w in gram), " ".join(gram))
    return found


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
) -> list[str]:
    """Phrases frequent in ``group``, rare in general (``background``) and mostly found in
    this group of the ``library`` (a c-TF-IDF: group share × inverse background frequency
    × share of the library's occurrences in the group; longer phrases preferred), without
    phrases contained in a better one."""
    surface: dict[tuple[str, ...], Counter[str]] = {}
    inside: Counter[tuple[str, ...]] = Counter()
    titled: Counter[tuple[str, ...]] = Counter()  # phrases of titles and tags: more topical
    for paper in group:
        text = paper.text + ". " + ". ".join(paper.keywords)
        for key, form in _phrases(text).items():
            inside[key] += 1
            surface.setdefault(key, Counter())[form] += 1
        titled.update(_phrases(paper.title + ". " + ". ".join(paper.keywords)).keys())
    everywhere: Counter[tuple[str, ...]] = Counter()
    for paper in library:
        everywhere.update(_phrases(paper.text + ". " + ". ".join(paper.keywords)).keys())
    need = 2 if len(group) >= 3 else 1
    scored = []
    for key, count in inside.items():
        share = count / len(group)
        if count < need or (len(key) == 1 and (share < 0.4 or not titled[key])):
            continue  # a single word must be common in the group and in a title
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
        if inner:
            # "multivariate time series" over "time series" when it is nearly as common
            if all(inside[key] >= 0.6 * inside[c] for c in inner):
                chosen = [key if c == inner[0] else c for c in chosen if c not in inner[1:]]
            continue
        chosen.append(key)
        if len(chosen) >= limit:
            break
    return [surface[key].most_common(1)[0][0] for key in chosen]


def _central_titles(group: Sequence[LibraryPaper], vectors: np.ndarray, limit: int) -> list[str]:
    center = vectors.sum(axis=0)
    order = np.argsort(-(vectors @ center), kind="stable")
    return [group[i].title for i in order[:limit] if group[i].title]


def _offline_name(phrases: Sequence[str], taken: set[str]) -> str:
    """The top phrase, and the next one that shares no word with it ("Time series /
    Forecasting", not "Time series / Multivariate time")."""
    if not phrases:
        return f"Line {len(taken) + 1}"
    first = phrases[0]
    others = [p for p in phrases[1:] if not set(p.split()) & set(first.split())]
    for parts in ([first, *others[:1]], [first, *others[1:2]], [first]):
        name = " / ".join(p[:1].upper() + p[1:] for p in parts)
        if name not in taken:
            return name
    return f"{first[:1].upper() + first[1:]} {len(taken) + 1}"


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
        titles = _central_titles(group, vectors[members], 3)
        name = _offline_name(phrases, taken)
        taken.add(name)
        topics = ", ".join(phrases[:5]) or "the topics of these papers"
        like = "; ".join(titles)
        description = f"Research on {topics}. Papers like: {like}."
        proposed.append(ProposedLine(name, description, tuple(phrases), tuple(group)))
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
        got = by_key.get(f"g{number}")
        if got is None or not got.name.strip() or got.name.strip() in taken:
            named.append(line)
            taken.add(line.name)
            continue
        keywords = tuple(dict.fromkeys([*got.keywords, *line.keywords]))[:12]
        named.append(
            ProposedLine(
                name=got.name.strip(),
                description=got.description.strip() or line.description,
                keywords=keywords,
                papers=line.papers,
                keywords_zh=tuple(got.keywords_zh[:8]),
            )
        )
        taken.add(got.name.strip())
    return named
