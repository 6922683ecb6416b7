"""Sentence-level extraction from English scientific prose, without an LLM.

Used by the offline writer to find the problem / method / result sentences of an abstract and
the numbers it reports. Heuristic by design: it only ever *selects* sentences the authors
wrote, so it cannot invent a claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from paperbrief.text import clean_tex, find_numbers, reported_numbers, split_sentences

PROBLEM_CUES = (
    "however",
    "challenge",
    "remain",
    "limited",
    "lack",
    "struggle",
    "problem",
    "fail",
    "costly",
    "expensive",
    "difficult",
    "gap",
    "unclear",
    "despite",
    "bottleneck",
    "suffer",
    "little is known",
    "open question",
    "understudied",
    "insufficient",
)
METHOD_CUES = (
    "we propose",
    "we present",
    "we introduce",
    "we develop",
    "we design",
    "we build",
    "we conduct",
    "we study",
    "we investigate",
    "we analyze",
    "we analyse",
    "we examine",
    "we evaluate",
    "we construct",
    "we release",
    "this paper",
    "in this work",
    "in this paper",
    "our approach",
    "our method",
    "our framework",
    "to address",
    "to this end",
)
# A finding in its own right, with or without a number.
FINDING_CUES = (
    "results show",
    "results indicate",
    "results suggest",
    "we find",
    "we found",
    "we show",
    "we observe",
    "we demonstrate",
    "experiments show",
    "evaluation shows",
    "show that",
    "shows that",
    "demonstrate that",
    "demonstrates that",
    "reveal that",
    "reveals that",
    "outperform",
    "surpass",
    "state-of-the-art",
)
# Words a result sentence uses, which count only next to a reported number.
RESULT_CUES = (
    "achiev",
    "improv",
    "reduc",
    "increase",
    "raise",
    "speedup",
    "gain",
    "accuracy",
    "success rate",
    "repair",
    "resolve",
    "confirmed",
    "merged",
    "up to",
    "exceed",
    "higher",
    "lower",
    "better",
    "faster",
    "drop",
)
LIMITATION_CUES = ("limitation", "future work", "threat", "does not", "do not", "cannot", "only")


def _cue_score(sentence: str, cues: tuple[str, ...]) -> int:
    lowered = sentence.lower()
    return sum(1 for cue in cues if cue in lowered)


@dataclass(frozen=True)
class AbstractParts:
    """The abstract's sentences sorted into the digest's sections (each may be empty)."""

    problem: tuple[str, ...]
    method: tuple[str, ...]
    results: tuple[str, ...]
    numbers: tuple[str, ...]  # sentences that report numbers
    tldr: tuple[str, ...]


_PRONOUN_START = re.compile(r"^(?:it|this|they|these|that|such)\b", re.IGNORECASE)


def _headline_score(sentence: str) -> tuple[int, int, int, int]:
    """How well a result sentence serves as the headline: measured quantities (with a
    unit or decimals) first, then any numbers, a sentence that does not lean on the one
    before ("It also …") and, last, brevity."""
    values = [m for m in find_numbers(sentence) if m.kind == "value" and m.standalone]
    measured = sum(1 for m in values if m.unit or m.decimals)
    return (measured, len(values), 0 if _PRONOUN_START.match(sentence) else 1, -len(sentence))


def is_finding(sentence: str) -> bool:
    """A sentence that reports a finding with a real quantity (not "Question 1", not a
    count up to ten): what the offline writer may put under the results."""
    significant = [
        m
        for m in find_numbers(sentence)
        if m.kind == "value" and not m.in_name and (m.unit or m.decimals or m.value > 10)
    ]
    return bool(significant) and _is_result(sentence)


def _is_result(sentence: str) -> bool:
    """A finding: a finding cue, or a reported number next to a result word."""
    lowered = sentence.lower()
    if any(cue in lowered for cue in FINDING_CUES):
        return True
    return bool(reported_numbers(sentence)) and any(cue in lowered for cue in RESULT_CUES)


def classify_abstract(abstract: str) -> AbstractParts:
    """Sort the abstract's sentences into problem / method / results; each sentence once.

    A result is a finding (``FINDING_CUES``, or a number next to a result word); a method
    sentence says what the authors did (``METHOD_CUES``); the rest before the first method
    sentence set up the problem (problem cues later in the abstract count too). The TL;DR
    is the first method sentence and the result with the most numbers; those two sentences
    are then left out of the other parts, and ``numbers`` keeps only number sentences shown
    nowhere else, so no sentence is printed twice.
    """
    sentences = split_sentences(clean_tex(abstract))
    problem: list[str] = []
    method: list[str] = []
    results: list[str] = []
    for sentence in sentences:
        if _is_result(sentence):
            results.append(sentence)
        elif _cue_score(sentence, METHOD_CUES):
            method.append(sentence)
        elif not method or _cue_score(sentence, PROBLEM_CUES):
            problem.append(sentence)
        else:
            method.append(sentence)  # a sentence that goes on describing the method
    tldr: list[str] = []
    if method:
        tldr.append(method[0])
    if results:
        tldr.append(max(results, key=_headline_score))
    if not tldr and sentences:
        tldr.append(sentences[0])
    parts = {
        "problem": tuple(s for s in problem if s not in tldr)[:3],
        "method": tuple(s for s in method if s not in tldr)[:4],
        "results": tuple(s for s in results if s not in tldr)[:4],
    }
    shown = {*tldr, *parts["problem"], *parts["method"], *parts["results"]}
    return AbstractParts(
        problem=parts["problem"],
        method=parts["method"],
        results=parts["results"],
        numbers=tuple(s for s in sentences if reported_numbers(s) and s not in shown)[:6],
        tldr=tuple(standalone(s) for s in tldr),
    )


_CONNECTIVE = re.compile(
    r"^(?:to (?:address|fill|bridge|tackle) (?:this|these|the) (?:gap|gaps|problem|issue|"
    r"challenge|challenges|limitations?)|following this (?:direction|line|idea)|specifically|"
    r"furthermore|moreover|in addition|additionally|to this end|in this (?:paper|work)|"
    r"here|finally|however|overall|concretely|in particular),\s+",
    re.IGNORECASE,
)


def standalone(sentence: str) -> str:
    """Drop a leading connective ("To address this gap, …", "Furthermore, …") so a sentence
    read out of its abstract does not point at context the reader lacks."""
    stripped = _CONNECTIVE.sub("", sentence, count=1)
    if stripped == sentence or not stripped:
        return sentence
    return stripped[0].upper() + stripped[1:]
