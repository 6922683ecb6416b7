"""What each section of a paper is for, so the writer view can budget by importance.

A paper of any field — an ML benchmark, an economics field experiment, an SE empirical
study, a theory paper — is read as a sequence of sections with a role:

* ``introduction``; ``related`` (related work, background, preliminaries);
* ``method`` (approach, design, model, framework, algorithm) and ``setup`` (data,
  experimental setup, baselines, metrics, implementation, summary statistics);
* ``results`` (results, evaluation, experiments, findings, analysis, ablations, RQs,
  robustness, heterogeneity, mechanisms, case and user studies);
* ``discussion``, ``conclusion``, ``limitations`` (incl. threats to validity);
* a main-body section whose heading names none of these ("Awareness of backdoors",
  "Axioms on VCCRs") is *results* when a subsection below it is (its experiments carry
  their own names), or when the paper has no top-level results section at all (a theory
  paper's theorems); otherwise it is method (a system named in its heading);
* ``skip``: acknowledgments, author contributions, funding, checklists.

A heading's own words decide first (``Experimental Setup`` under ``5 Experiments`` is
setup); a heading without role words inherits its parent's. Everything after the first
lettered section (``A``, ``B.1``) or an "Appendix" heading is appendix, whatever its role.
Unnumbered sub-headings carry their parent's number (``4.1`` for "Results" under 4.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from paperbrief.models import Document, Section

Role = Literal[
    "introduction",
    "related",
    "method",
    "setup",
    "results",
    "discussion",
    "conclusion",
    "limitations",
    "skip",
]

# First matching role wins, so the order encodes precedence ("Results and Discussion" is
# results; "Experimental Setup" is setup; "Summary Statistics" is setup, not conclusion).
_ROLE_WORDS: tuple[tuple[Role, tuple[str, ...]], ...] = (
    (
        "skip",
        (
            "acknowledg",
            "author contribution",
            "funding",
            "checklist",
            "conflict of interest",
            "competing interest",
            "contributions of the authors",
            "datasheet",
            "impact statement",
            "ethics statement",
            "reproducibility statement",
            "data availability",
            "references",
            "bibliography",
            "footnote",
            "about the author",
            " authors ",
        ),
    ),  # fmt: skip
    (
        "limitations",
        (
            "limitation",
            "threats to validity",
            "threat to validity",
            "validity threat",
            "caveat",
            "failure case",
            "failure mode",
            "broader impact",
        ),
    ),  # fmt: skip
    (
        "setup",
        (
            "setup",
            "set-up",
            "experimental design",
            "implementation detail",
            "baseline",
            "metric",
            "summary statistic",
            "descriptive statistic",
            "data collection",
            "dataset",
            "data and",
            "data description",
            "sample",
            "participants",
            "hyperparameter",
            "training detail",
            "experimental setting",
            "evaluation setting",
            "evaluation protocol",
            "balance",
        ),
    ),  # fmt: skip
    (
        "results",
        (
            "result",
            "finding",
            "evaluation",
            "experiment",
            "empirical",
            "analysis",
            "analyses",
            "ablation",
            "performance",
            "comparison",
            "case stud",
            "user stud",
            "human stud",
            " rq",
            "research question",
            "robustness",
            "heterogene",
            "mechanisms",
            "treatment effect",
            "effect of",
            "effects of",
            "impact of",
            "outcome",
            "what we found",
            "observations",
            "benchmarking",
            "scaling",
            "error analysis",
            "main estimate",
            "estimates",
        ),
    ),  # fmt: skip
    (
        "discussion",
        ("discussion", "implication", "interpretation", "lessons learned", "insight"),
    ),  # fmt: skip
    (
        "conclusion",
        (
            "conclusion",
            "concluding",
            "summary",
            "future work",
            "future direction",
            "closing remark",
            "outlook",
            "final remark",
        ),
    ),  # fmt: skip
    (
        "related",
        (
            "related work",
            "background",
            "prior work",
            "previous work",
            "literature",
            "preliminar",
            "notation",
            "institutional context",
            "context and",
        ),
    ),  # fmt: skip
    ("introduction", ("introduction", "motivation")),
    (
        "method",
        (
            "method",
            "approach",
            "model",
            "framework",
            "architecture",
            "algorithm",
            "design",
            "system",
            "proposed",
            "our ",
            "technique",
            "pipeline",
            "formulation",
            "problem setting",
            "problem statement",
            "problem definition",
            "overview",
            "intervention",
            "strategy",
            "procedure",
            "theory",
            "conceptual",
        ),
    ),  # fmt: skip
)
_APPENDIX_HEADING = re.compile(r"^(?:appendix|appendices|supplementary|supplemental)\b", re.I)
_TABLE_REFERENCE = re.compile(
    r"\b(Tables?|Tab\.)\s*((?:[A-Z]?\d+(?:\.\d+)?(?:[a-z]|\([a-z]\))?(?:\s*(?:,|and|&|–|-|to)\s*)?)+)"
)


_TABLE_NUMBER = re.compile(r"([A-Z]?\d+(?:\.\d+)?)(?:([a-z])\b|\(([a-z])\))?")


@dataclass(frozen=True)
class RoledSection:
    """One section with its role; ``section.number`` already inherits the parent's."""

    index: int  # position in Document.sections
    section: Section
    role: Role
    appendix: bool
    parent: int | None  # index of the enclosing section

    @property
    def title(self) -> str:
        return " ".join(part for part in (self.section.number, self.section.heading) if part)

    @property
    def main_results(self) -> bool:
        """A results section of the main body (what the writer must see)."""
        return self.role == "results" and not self.appendix

    @property
    def closing(self) -> bool:
        """Discussion, conclusion or limitations of the main body."""
        return self.role in ("discussion", "conclusion", "limitations") and not self.appendix


_WORD_PATTERNS: tuple[tuple[Role, re.Pattern[str]], ...] = tuple(
    # a role word starts a word of the heading: "metric" is not in "asymmetric"
    (role, re.compile("|".join(r"(?<![a-z])" + re.escape(w.strip()) for w in words)))
    for role, words in _ROLE_WORDS
)


def heading_role(heading: str) -> Role | None:
    """The role a heading's own words give, or None when they name none."""
    name = f" {heading.lower()} "
    for role, pattern in _WORD_PATTERNS:
        if pattern.search(name):
            return role
    return None


# What a paragraph does, read from its sentences: a finding states an outcome (we find,
# results show, outperforms, increases by, Table 2 shows … with a quantity); a design
# sentence says what was done (we create / finetune / recruit / randomize, consists of).
_FINDING = re.compile(
    r"\bwe (?:find|found|observe[sd]?|see|note|show(?:ed)?)\b|\bresults? (?:show|indicate|"
    r"suggest|reveal|demonstrate|are shown)|\b(?:outperform|surpass|exceed|improv|increas|"
    r"decreas|reduc|rais|declin|drop)\w*|\bsignificant(?:ly)?\b|\b(?:higher|lower|better|"
    r"worse) than\b|\b(?:tables?|figures?|fig\.)\s*\d+\w?\s*(?:shows?|reports?|presents?|"
    r"lists?|summari[sz]es)|\bas shown in\b|\bconsistently\b|\bon average\b|\bachiev\w*",
    re.IGNORECASE,
)
_DESIGN = re.compile(
    r"\bwe (?:create|construct|collect|recruit|design|fine-?tune|train|use|employ|randomi[sz]e|"
    r"assign|sample|define|generate|select|implement|adopt|follow|build|prompt|ask|run|"
    r"conduct|consider|experiment with|test|develop)\b|\bparticipants (?:were|are)\b|"
    r"\bwere randomi[sz]ed\b|\bconsists? of\b|\bcompris\w+\b|\bdetails (?:are|can be)\b",
    re.IGNORECASE,
)
_QUANTITY = re.compile(r"\d+(?:\.\d+)?\s?(?:%|×|x\b|pp\b|percentage points?|times\b)|\d\.\d")


def paragraph_reports_findings(paragraph: str) -> bool:
    """Whether a paragraph states outcomes (module docstring), not only what was done."""
    for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
        finding = bool(_FINDING.search(sentence))
        if finding or (_QUANTITY.search(sentence) and not _DESIGN.search(sentence)):
            return True
    return False


def paragraph_describes_design(paragraph: str) -> bool:
    return bool(_DESIGN.search(paragraph))


def roled_sections(doc: Document) -> list[RoledSection]:
    """Every section of ``doc`` in order, with role, appendix flag and inherited number."""
    sections = doc.sections
    own = [heading_role(section.heading) for section in sections]
    parent_of: list[int | None] = []
    stack: list[int] = []
    for index, section in enumerate(sections):
        while stack and sections[stack[-1]].level >= section.level:
            stack.pop()
        parent_of.append(stack[-1] if stack else None)
        stack.append(index)
    # A core section whose subsections include results is a results section by content
    # ("3 Awareness of behaviors" with "3.1.2 Evaluation" and "Results" below it).
    results_below = [False] * len(sections)
    for index in range(len(sections) - 1, -1, -1):
        parent = parent_of[index]
        if parent is not None and (own[index] == "results" or results_below[index]):
            results_below[parent] = True
    has_top_results = any(
        own[i] == "results" and s.level == 1 and not _lettered(s.number)
        for i, s in enumerate(sections)
    )

    def content_role(index: int, role: Role) -> Role:
        """A results-named section that only describes what was done is setup; a section
        with no role words reports results when most of its paragraphs do."""
        paragraphs = [p for p in sections[index].paragraphs if not p.startswith("> ")]
        if not paragraphs:
            return role
        reporting = sum(1 for p in paragraphs if paragraph_reports_findings(p))
        designing = sum(1 for p in paragraphs if paragraph_describes_design(p))
        if role == "results" and not reporting and designing and not results_below[index]:
            return "setup"
        return role

    result: list[RoledSection] = []
    worded: list[Role | None] = []  # the role heading words gave (own, else the parent's)
    in_appendix = False
    for index, section in enumerate(sections):
        parent = parent_of[index]
        if _lettered(section.number) or _APPENDIX_HEADING.match(section.heading):
            in_appendix = True
        role: Role
        words = (
            own[index]
            if own[index] is not None
            else (worded[parent] if parent is not None else None)
        )
        worded.append(words)
        if words is not None:
            role = content_role(index, words)
        elif parent is not None:
            role = result[parent].role
        elif index == 0:
            role = "introduction"  # an untitled opening section reads as the introduction
        elif in_appendix:
            role = "method"
        elif results_below[index] or not has_top_results:
            role = "results"
        else:
            role = "method"
        number = section.number or (result[parent].section.number if parent is not None else "")
        result.append(
            RoledSection(
                index=index,
                section=replace(section, number=number) if number != section.number else section,
                role=role,
                appendix=in_appendix,
                parent=parent,
            )
        )
    return result


def _lettered(number: str) -> bool:
    return bool(number) and number[0].isalpha()


def table_references(text: str) -> list[str]:
    """Table labels a text refers to, in order: "Tables 2 and 3" → ["Table 2", "Table 3"];
    a sub-table adds its own label: "Table 2(b)" → ["Table 2", "Table 2b"]."""
    labels: list[str] = []
    for match in _TABLE_REFERENCE.finditer(text):
        for part in _TABLE_NUMBER.finditer(match.group(2)):
            number, sub = part.group(1), part.group(2) or part.group(3) or ""
            for label in (f"Table {number}", f"Table {number}{sub}" if sub else ""):
                if label and label not in labels:
                    labels.append(label)
    return labels
