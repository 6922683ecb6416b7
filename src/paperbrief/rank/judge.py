"""The LLM judge: screens the head of the cheap ranking with title + abstract.

``judge_ranking`` sends the top ``judge_top_k`` papers in batches of ``judge_batch_size``
to the ``judge`` role of the LLM boundary (``paperbrief.llm.CompletesJSON``) with the
reader's profile (research lines and what to avoid) as the rubric (prompt:
``prompts/judge.md``). Each paper gets stars 1-5, the research line it serves, a one-line
reason and a must-read flag.

Paper text is data: it is placed inside ``<paper key=...>`` tags, defused so it cannot
close them (``prompts.defuse``), the prompt says never to follow instructions found there,
and every answer is
validated (pydantic, keys must be ones we sent, lines must be the profile's). A batch that
fails (transport error, invalid JSON after the client's one repair, budget spent) leaves
its papers with their cheap verdicts: the day is never lost. ``apply_verdicts`` is the one
place verdicts change a ranking, shared with ``paperbrief eval ranking --judge-replay``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from paperbrief import prompts
from paperbrief.errors import PaperbriefError
from paperbrief.llm import CompletesJSON
from paperbrief.models import ScoredPaper
from paperbrief.profile import Profile

# Completion cap per paper of a batch: one short JSON verdict with a one-line reason.
TOKENS_PER_VERDICT = 150


class JudgeVerdict(BaseModel):
    key: str = Field(description="The key of the paper as given, e.g. P07.")
    stars: int = Field(ge=1, le=5)
    line: str = Field("", description="Exact research-line name, or empty.")
    reason: str = Field(max_length=400)
    must_read: bool = False


class JudgeAnswer(BaseModel):
    papers: list[JudgeVerdict]


@dataclass(frozen=True)
class Verdict:
    stars: int
    line: str
    reason: str
    must_read: bool = False


@dataclass
class JudgeResult:
    ranking: list[ScoredPaper]
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # by arXiv id
    batches: int = 0
    failed_batches: int = 0
    errors: list[str] = field(default_factory=list)


def judge_system_prompt(profile: Profile) -> str:
    """The judge's system message: the profile as the rubric."""
    return prompts.load("judge").substitute(
        profile=prompts.describe_profile(profile),
        language=prompts.LANGUAGE_NAMES[profile.language],
    )


def _untrusted(text: str) -> str:
    """Paper text on one line, unable to close or open our delimiting tags."""
    return " ".join(prompts.defuse(text).split())


def batch_message(papers: Sequence[ScoredPaper], keys: Sequence[str]) -> str:
    blocks = [
        f'<paper key="{key}">\nTitle: {_untrusted(s.paper.title)}\n'
        f"Categories: {', '.join(s.paper.categories)}\n"
        f"Abstract: {_untrusted(s.paper.abstract)}\n</paper>"
        for key, s in zip(keys, papers, strict=True)
    ]
    return f"Rate these {len(papers)} papers (keys {keys[0]}..{keys[-1]}).\n\n" + "\n\n".join(
        blocks
    )


def _validated(answer: JudgeAnswer, keys: Sequence[str], profile: Profile) -> dict[str, Verdict]:
    """Verdicts by key, keeping only keys we sent and research lines the profile has."""
    names = {line.name for line in profile.research_lines}
    sent = set(keys)
    verdicts: dict[str, Verdict] = {}
    for item in answer.papers:
        if item.key in sent and item.key not in verdicts:
            line = item.line if item.line in names else ""
            verdicts[item.key] = Verdict(
                item.stars, line, " ".join(item.reason.split()), item.must_read
            )
    return verdicts


def judge_ranking(
    ranking: Sequence[ScoredPaper],
    profile: Profile,
    client: CompletesJSON,
    *,
    max_workers: int = 4,
) -> JudgeResult:
    """Screen the head of ``ranking`` with the LLM and return the re-ordered ranking.

    Batches are sent concurrently (``max_workers``; the client enforces its own limit and
    budget); a failed batch keeps its cheap order and its error lands in ``errors``.
    """
    top_k = profile.rank.judge_top_k or len(ranking)
    head = list(ranking[:top_k])
    size = profile.rank.judge_batch_size
    system = judge_system_prompt(profile)
    result = JudgeResult(ranking=list(ranking))
    batches = []
    for start in range(0, len(head), size):
        batch = head[start : start + size]
        batches.append((batch, [f"P{start + i + 1:02d}" for i in range(len(batch))]))

    def ask(batch: list[ScoredPaper], keys: list[str]) -> JudgeAnswer:
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": batch_message(batch, keys)},
        ]
        return client.complete_json(
            "judge", messages, JudgeAnswer, max_tokens=TOKENS_PER_VERDICT * len(batch) + 200
        )

    with ThreadPoolExecutor(max_workers=max(1, max_workers)) as pool:
        futures = [pool.submit(ask, batch, keys) for batch, keys in batches]
        for (batch, keys), future in zip(batches, futures, strict=True):
            result.batches += 1
            try:
                answer = future.result()
            except (PaperbriefError, ValidationError) as error:
                result.failed_batches += 1
                result.errors.append(str(error)[:300])
                continue
            by_key = _validated(answer, keys, profile)
            for key, scored in zip(keys, batch, strict=True):
                if key in by_key:
                    result.verdicts[scored.paper.id] = by_key[key]
    result.ranking = apply_verdicts(ranking, result.verdicts, profile)
    return result


# How much a must-read flag and the cheap score count next to the judge's stars.
MUST_READ_BONUS = 0.5
CHEAP_TIEBREAK = 0.05


def apply_verdicts(
    ranking: Sequence[ScoredPaper], verdicts: Mapping[str, Verdict], profile: Profile
) -> list[ScoredPaper]:
    """Re-order the judged head of ``ranking`` by the judge's verdicts.

    Only the top ``judge_top_k`` papers move: they are sorted by stars (+ must-read bonus,
    cheap score as a tie-break; papers of failed batches keep their cheap stars); the rest
    keep their cheap order behind them. Judged papers take the judge's stars, line and
    reason; ``components["judge"]`` records the stars. Ranks are renumbered 1..n and the
    head's scores are re-dealt in the new order (so score order equals rank order).
    """
    top_k = profile.rank.judge_top_k or len(ranking)
    head, tail = list(ranking[:top_k]), list(ranking[top_k:])
    if not any(s.paper.id in verdicts for s in head):
        return list(ranking)
    updated = []
    for scored in head:
        verdict = verdicts.get(scored.paper.id)
        if verdict is None:
            updated.append((scored.stars + CHEAP_TIEBREAK * scored.score, scored))
            continue
        key = verdict.stars + MUST_READ_BONUS * verdict.must_read + CHEAP_TIEBREAK * scored.score
        updated.append(
            (
                key,
                replace(
                    scored,
                    stars=verdict.stars,
                    line=verdict.line or scored.line,
                    reason=verdict.reason or scored.reason,
                    components={
                        **scored.components,
                        "judge": float(verdict.stars),
                        "must_read": float(verdict.must_read),
                    },
                ),
            )
        )
    judged = [s for _, s in sorted(updated, key=lambda pair: -pair[0])]
    # The head keeps its set of cheap scores, re-assigned in the judged order, so `score`
    # agrees with the order (pick selection reads scores) and keeps its units and spread.
    slots = sorted((s.score for s in head), reverse=True)
    judged = [replace(s, score=slot) for s, slot in zip(judged, slots, strict=True)]
    return [replace(s, rank=i + 1) for i, s in enumerate(judged + tail)]


class JudgeReplayError(PaperbriefError):
    """A --judge-replay file is missing or malformed."""


def load_replay(path: Path) -> dict[str, dict[str, Verdict]]:
    """Recorded verdicts, by listing day then arXiv id (see ``replay_record``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            day: {
                paper_id: Verdict(
                    int(v["stars"]),
                    str(v.get("line", "")),
                    str(v.get("reason", "")),
                    bool(v.get("must_read", False)),
                )
                for paper_id, v in papers.items()
            }
            for day, papers in data.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise JudgeReplayError(
            f"cannot read judge replay {path}: {error}",
            'expected {"YYYY-MM-DD": {"<arXiv id>": {"stars": 3, "line": "", "reason": ""}}}',
        ) from error


def replay_record(verdicts: Mapping[str, Verdict]) -> dict[str, dict[str, object]]:
    """One day's verdicts in the replay file format (for recording a live judge run)."""
    return {
        paper_id: {"stars": v.stars, "line": v.line, "reason": v.reason, "must_read": v.must_read}
        for paper_id, v in verdicts.items()
    }


__all__ = [
    "JudgeAnswer",
    "JudgeResult",
    "JudgeVerdict",
    "Verdict",
    "apply_verdicts",
    "judge_ranking",
    "load_replay",
    "replay_record",
    "judge_system_prompt",
]
