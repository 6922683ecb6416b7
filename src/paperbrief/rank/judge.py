"""The LLM judge: a first screen of the cheap ranking's head, then a full reading of the
papers worth it, on the reader's absolute scale.

``judge_ranking`` works through the ``judge`` role of the LLM boundary
(``paperbrief.llm.CompletesJSON``):

1. the screen: the cheap top ``screen_top_k`` papers, from title and gist, in interleaved
   batches of ``screen_batch_size`` (``rank.screen``); a batch rated far below what its
   papers' cheap scores predict is screened again in small batches;
2. the head (``rank.screen.choose_head``): the cheap top ``judge_always`` plus the best of
   the screen, as far as the day's ``judge_prompt_tokens`` reach;
3. the full reading: each head paper in its own request (title, categories, abstract), with
   relevance 0-100, stars, line, reason, must-read and whether it instructs the model.

Every request's system message is the same reader prefix (``prompts/judge_reader.md``: the
profile, the reader's taste from feedback, the scale, safety) followed by the task, so
within a day each kind of request repeats one cached prefix.

Paper text is data, and one paper's text cannot move another paper's reading:

* each head paper is read in its own request (``judge_batch_size = 1``, the default);
  with larger batches a paper whose batch verdict moves it at all from its cheap stars (by
  one star too) is read again alone, and so is every paper of a batch in which a verdict
  moved ``JUMP`` or more stars; those verdicts stand;
* a paper can still talk the model into rating *itself*: one read ``JUMP`` or more stars
  above its cheap stars is read again without the sentences that could address its reader
  (a wide net of patterns, and what the model quotes when asked which sentences speak to
  it: ``_check_steering``); if its rating falls by ``JUMP`` or more, it rested on them,
  and the paper is flagged;
* in the screen an injected title can only lower its batch-mates, which the suspicion
  check and the ``judge_always`` head bound (``rank.screen``);
* papers whose text instructs the model (``rank.injection``) are never sent; a paper the
  judge says instructs it is flagged too; flagged papers get one star and are never picked;
* text sits inside ``<paper key=...>`` tags, defused (``prompts.defuse``); answers are
  validated (keys must be ones we sent, lines the profile's).

A request that fails leaves its papers with what they had (a screen, or the cheap score):
the day is never lost. ``apply_verdicts`` is the one place verdicts change a ranking,
shared with ``paperbrief eval ranking --judge-replay``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from paperbrief.errors import FATAL, PaperbriefError
from paperbrief.labels import labels_for
from paperbrief.llm import CompletesJSON, StructuredLLM
from paperbrief.models import Fallback, ScoredPaper
from paperbrief.profile import Profile
from paperbrief.prompts import line_named
from paperbrief.rank import flags
from paperbrief.rank.calibrate import judge_relevance, stars_of
from paperbrief.rank.injection import (
    flagged_papers,
    quoted_spans,
    reader_addresses,
    without_addresses,
)
from paperbrief.rank.judge_prompts import (
    AddressAnswer,
    JudgeAnswer,
    JudgeVerdict,
    ScreenAnswer,
    address_messages,
    judge_messages,
    screen_messages,
    sent,
)
from paperbrief.rank.reader import Reader
from paperbrief.rank.screen import (
    RESCREEN_BATCH,
    choose_head,
    screen_batches,
    screen_keys,
    suspect_batches,
)
from paperbrief.rank.text import paper_text, text_hash
from paperbrief.records import Verdict
from paperbrief.text import estimate_tokens, shorten

# Completion caps: one short JSON verdict with a one-line reason; one number per screened paper.
TOKENS_PER_VERDICT = 150
TOKENS_PER_SCREEN = 16
# A batch verdict this many stars away from the cheap stars needs a reading alone.
JUMP = 2


Message = dict[str, str]
V = TypeVar("V")


def prompt_tokens(messages: Sequence[Message]) -> int:
    """Prompt tokens of a request as the budget counts them (the text of its messages, as
    sent: ``judge_prompts.sent``)."""
    return sum(estimate_tokens(m["content"]) for m in messages)


@dataclass
class JudgeTokens:
    """What the judge's prompts cost on a day (``paperbrief.text.estimate_tokens``)."""

    screen_requests: int = 0
    screen_prompt: int = 0
    judge_requests: int = 0
    judge_prompt: int = 0
    # the steering check's questions (which sentences speak to the model?); its re-readings
    # count as readings
    address_requests: int = 0
    address_prompt: int = 0
    shared_prefix: int = 0  # prompt tokens that repeat an earlier request's system message

    @property
    def prompt(self) -> int:
        return self.screen_prompt + self.judge_prompt + self.address_prompt

    @property
    def prefix_share(self) -> float:
        return self.shared_prefix / self.prompt if self.prompt else 0.0


@dataclass
class JudgeResult:
    ranking: list[ScoredPaper]
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # by arXiv id
    screens: dict[str, int] = field(default_factory=dict)  # first-screen relevance by id
    head: list[str] = field(default_factory=list)  # ids read in full
    tokens: JudgeTokens = field(default_factory=JudgeTokens)
    batches: int = 0  # requests sent (screens, re-screens, readings, confirmations)
    failed_batches: int = 0
    confirmations: int = 0  # batch verdicts re-read alone
    address_checks: int = 0  # risen papers the model was asked which sentences address it
    steering_checks: int = 0  # papers re-read without the sentences addressing a reader
    steered: list[str] = field(default_factory=list)  # ... whose rating rested on them
    errors: list[Exception] = field(default_factory=list)  # of the failed requests
    head_cut_by_budget: bool = False


def verdicts_by_key(
    answer: JudgeAnswer, keys: Sequence[str], profile: Profile
) -> dict[str, Verdict]:
    """Verdicts by key, keeping only keys we sent; a line that names none of the profile's
    is dropped (None: keep the cheap line), an empty line is the judge's "none of them"."""
    sent = set(keys)
    found: dict[str, Verdict] = {}
    for item in answer.papers:
        if item.key in sent and item.key not in found:
            found[item.key] = _verdict(item, profile)
    return found


def _verdict(item: JudgeVerdict, profile: Profile) -> Verdict:
    return Verdict(
        stars=item.stars,
        line=line_named(item.line, profile),
        reason=" ".join(item.reason.split()),
        must_read=item.must_read,
        instructions=item.instructions,
        relevance=item.relevance,
    )


class Answers(Protocol):
    """Who answers the judge's requests: the LLM (``LLMAnswers``) or a recorded replay
    (``ReplayAnswers``). Each call gets the requests' papers and their rendered messages and
    returns, per request, what it found by arXiv id, or the error that stopped it."""

    def screen(
        self, batches: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, int] | Exception]: ...

    def read(
        self, groups: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, Verdict] | Exception]: ...

    def addresses(
        self, papers: Sequence[ScoredPaper], requests: Sequence[list[Message]]
    ) -> list[list[str] | Exception]:
        """Per paper, the sentences the model quotes as speaking to whoever rates it."""
        ...


class LLMAnswers:
    """The judge role of the LLM boundary, ``workers`` requests at a time."""

    def __init__(self, client: CompletesJSON, profile: Profile, workers: int = 4) -> None:
        self.client = client
        self.profile = profile
        self.workers = max(1, workers)

    def _ask(
        self, requests: Sequence[list[Message]], schema: type[BaseModel], caps: Sequence[int]
    ) -> list[BaseModel | Exception]:
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = [
                pool.submit(self.client.complete_json, "judge", messages, schema, max_tokens=cap)
                for messages, cap in zip(requests, caps, strict=True)
            ]
            answers: list[BaseModel | Exception] = []
            for future in futures:
                try:
                    answers.append(future.result())
                except (PaperbriefError, ValidationError) as error:
                    answers.append(error)
        return answers

    def screen(
        self, batches: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, int] | Exception]:
        caps = [TOKENS_PER_SCREEN * len(b) + 100 for b in batches]
        out: list[dict[str, int] | Exception] = []
        for batch, answer in zip(batches, self._ask(requests, ScreenAnswer, caps), strict=True):
            if not isinstance(answer, ScreenAnswer):
                out.append(answer if isinstance(answer, Exception) else ValueError("no answer"))
                continue
            given = {item.key: item.relevance for item in answer.papers}
            keys = screen_keys(len(batch))
            out.append(
                {s.paper.id: given[k] for k, s in zip(keys, batch, strict=True) if k in given}
            )
        return out

    def read(
        self, groups: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, Verdict] | Exception]:
        caps = [TOKENS_PER_VERDICT * len(g) + 200 for g in groups]
        out: list[dict[str, Verdict] | Exception] = []
        for group, answer in zip(groups, self._ask(requests, JudgeAnswer, caps), strict=True):
            if not isinstance(answer, JudgeAnswer):
                out.append(answer if isinstance(answer, Exception) else ValueError("no answer"))
                continue
            keys = paper_keys(len(group))
            by_key = verdicts_by_key(answer, keys, self.profile)
            out.append(
                {s.paper.id: by_key[k] for k, s in zip(keys, group, strict=True) if k in by_key}
            )
        return out

    def addresses(
        self, papers: Sequence[ScoredPaper], requests: Sequence[list[Message]]
    ) -> list[list[str] | Exception]:
        out: list[list[str] | Exception] = []
        for answer in self._ask(requests, AddressAnswer, [400] * len(requests)):
            if isinstance(answer, AddressAnswer):
                out.append(answer.sentences)
            else:
                out.append(answer if isinstance(answer, Exception) else ValueError("no answer"))
        return out


class ReplayAnswers:
    """Recorded answers of one day (``paperbrief judge export``), by arXiv id: a paper the
    recording has no answer for gets none, as if its request had found nothing."""

    def __init__(self, verdicts: Mapping[str, Verdict], screens: Mapping[str, int]) -> None:
        self.verdicts = verdicts
        self.screens = screens

    def screen(
        self, batches: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, int] | Exception]:
        return [
            {s.paper.id: self.screens[s.paper.id] for s in b if s.paper.id in self.screens}
            for b in batches
        ]

    def read(
        self, groups: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, Verdict] | Exception]:
        return [
            {s.paper.id: self.verdicts[s.paper.id] for s in g if s.paper.id in self.verdicts}
            for g in groups
        ]

    def addresses(
        self, papers: Sequence[ScoredPaper], requests: Sequence[list[Message]]
    ) -> list[list[str] | Exception]:
        """Nothing quoted: a recording holds the verdicts as they stood after the check."""
        return [[] for _ in papers]


def paper_keys(count: int) -> list[str]:
    return [f"P{i + 1:02d}" for i in range(count)]


def judge_ranking(
    ranking: Sequence[ScoredPaper],
    profile: Profile,
    answers: Answers,
    reader: Reader,
) -> JudgeResult:
    """Screen, choose the head, read it, and return the re-ordered ranking (see the module
    docstring). A request that failed leaves its papers with what they had; its error lands
    in ``errors``. Tokens are counted from the rendered requests, whoever answers them."""
    settings = profile.rank
    instructed = flagged_papers(s.paper for s in ranking[: max(settings.screen_top_k, 1)])
    ranking = [
        flags.flag_instructions(s, profile.language) if s.paper.id in instructed else s
        for s in ranking
    ]
    usable = [s for s in ranking if not flags.has(s, flags.INSTRUCTIONS)]
    result = JudgeResult(ranking=list(ranking))
    systems: set[str] = set()

    def send(kind: str, requests: list[list[Message]]) -> None:
        tokens = result.tokens
        schemas: dict[str, type[BaseModel]] = {"screen": ScreenAnswer, "addresses": AddressAnswer}
        for messages in (sent(m, schemas.get(kind, JudgeAnswer)) for m in requests):
            system = messages[0]["content"]
            if system in systems:
                tokens.shared_prefix += estimate_tokens(system)
            systems.add(system)
            if kind == "screen":
                tokens.screen_requests += 1
                tokens.screen_prompt += prompt_tokens(messages)
            elif kind == "addresses":
                tokens.address_requests += 1
                tokens.address_prompt += prompt_tokens(messages)
            else:
                tokens.judge_requests += 1
                tokens.judge_prompt += prompt_tokens(messages)
        result.batches += len(requests)

    def gather(outcomes: Sequence[dict[str, V] | Exception]) -> dict[str, V]:
        found: dict[str, V] = {}
        for outcome in outcomes:
            if isinstance(outcome, Exception):
                result.failed_batches += 1
                result.errors.append(outcome)
            else:
                found.update(outcome)
        return found

    def screen(batches: list[list[ScoredPaper]]) -> dict[str, int]:
        requests = [
            screen_messages(profile, reader.taste, [s.paper for s in b], screen_keys(len(b)))
            for b in batches
        ]
        send("screen", requests)
        return gather(answers.screen(batches, requests))

    def read(papers: Sequence[ScoredPaper], size: int) -> dict[str, Verdict]:
        groups = [list(papers[i : i + size]) for i in range(0, len(papers), size)]
        requests = [
            judge_messages(profile, reader.taste, [s.paper for s in g], paper_keys(len(g)))
            for g in groups
        ]
        send("judge", requests)
        return gather(answers.read(groups, requests))

    # 1. The first screen (skipped when the head would take every candidate anyway).
    candidates = usable[: settings.screen_top_k]
    screened = len(candidates) > settings.judge_always
    if screened:
        batches = screen_batches(candidates, settings.screen_batch_size)
        result.screens = screen(batches)
        # A batch talked down is screened again in small batches, and a small batch still
        # talked down paper by paper: alone, an injected title lowers nothing but itself.
        for size in (RESCREEN_BATCH, 1):
            suspects = [
                s
                for index in suspect_batches(batches, result.screens, candidates)
                for s in batches[index]
            ]
            if not suspects:
                break
            batches = screen_batches(suspects, size)
            for paper_id, relevance in screen(batches).items():
                result.screens[paper_id] = max(relevance, result.screens.get(paper_id, 0))

    # 2. The head, as far as the day's budget reaches.
    def cost(scored: ScoredPaper) -> int:
        messages = judge_messages(profile, reader.taste, [scored.paper], ["P01"])
        return prompt_tokens(sent(messages, JudgeAnswer))

    head = choose_head(
        candidates if screened else usable,
        result.screens,
        always=settings.judge_always,
        most=settings.judge_top_k or len(usable),
        budget=settings.judge_prompt_tokens - result.tokens.screen_prompt,
        cost=cost,
    )
    result.head = [s.paper.id for s in head.papers]
    result.head_cut_by_budget = head.cut_by_budget

    # 3. The full reading (alone by default; batches are confirmed alone when they moved far).
    result.verdicts = read(head.papers, settings.judge_batch_size)
    if settings.judge_batch_size > 1:
        # A move may have been written by another paper of the batch: a paper moved at all,
        # and every paper of a batch with a large move, is read again alone; that stands.
        size = settings.judge_batch_size
        groups = [head.papers[i : i + size] for i in range(0, len(head.papers), size)]
        # Another paper of the batch may have written any move, of one star too.
        suspect = [
            s
            for group in groups
            for s in group
            if _moved(s, result.verdicts.get(s.paper.id), 1)
            or any(_moved(t, result.verdicts.get(t.paper.id)) for t in group)
        ]
        for scored in suspect:
            result.verdicts.pop(scored.paper.id, None)
        result.confirmations = len(suspect)
        result.verdicts.update(read(suspect, 1))

    def ask(papers: Sequence[ScoredPaper]) -> list[list[str] | Exception]:
        requests = [address_messages(s.paper) for s in papers]
        send("addresses", requests)
        return answers.addresses(papers, requests)

    _check_steering(head.papers, result, ask, read, profile.language)
    result.ranking = apply_verdicts(ranking, result.verdicts, result.screens, reader, profile)
    return result


def _moved(scored: ScoredPaper, verdict: Verdict | None, by: int = JUMP) -> bool:
    return verdict is not None and abs(verdict.stars - scored.stars) >= by


def _check_steering(
    head: Sequence[ScoredPaper],
    result: JudgeResult,
    ask: Callable[[Sequence[ScoredPaper]], list[list[str] | Exception]],
    read: Callable[[Sequence[ScoredPaper], int], dict[str, Verdict]],
    language: str,
) -> None:
    """Judge the effect of a paper's own text. A paper read ``JUMP`` or more stars above
    its cheap stars is read again without the sentences that could address its reader:
    the wide net of ``injection.reader_addresses``, and the sentences the model, asked a
    different question (``prompts/reader_addresses.md``: which sentences speak to whoever
    rates this?), quotes from it — kept only when they are really in the text. When its
    rating then falls by ``JUMP`` or more, it rested on words to the model: the paper is
    flagged (one star, never picked) and its reason says which sentence and what it was
    worth. Whatever the model quotes, the effect decides: a quoted sentence the rating does
    not rest on changes nothing."""
    risen = [
        s
        for s in head
        if (verdict := result.verdicts.get(s.paper.id)) is not None
        and not verdict.instructions
        and verdict.stars - s.stars >= JUMP
    ]
    if not risen:
        return
    spans: dict[str, list[str]] = {}
    for scored, outcome in zip(risen, ask(risen), strict=True):
        result.address_checks += 1
        if isinstance(outcome, Exception):
            result.errors.append(outcome)  # the wide net alone, for this paper
            outcome = []
        spans[scored.paper.id] = quoted_spans(scored.paper, outcome)
    stripped = {
        s.paper.id: (replace(s, paper=paper), [*reader_addresses(s.paper), *spans[s.paper.id]])
        for s in risen
        if (paper := without_addresses(s.paper, spans[s.paper.id])) is not None
    }
    if not stripped:
        return
    again = read([scored for scored, _ in stripped.values()], 1)
    result.steering_checks = len(stripped)
    for paper_id, verdict in again.items():
        before = result.verdicts[paper_id]
        if before.stars - verdict.stars < JUMP:
            continue  # its rating does not rest on those sentences: the verdict stands
        sentence = shorten(stripped[paper_id][1][0], 200)
        note = labels_for(language).rank_steered.format(before=before.stars, after=verdict.stars)
        result.verdicts[paper_id] = replace(
            verdict, instructions=True, reason=f"{note}“{sentence}”"
        )
        result.steered.append(paper_id)


def apply_verdicts(
    ranking: Sequence[ScoredPaper],
    verdicts: Mapping[str, Verdict],
    screens: Mapping[str, float],
    reader: Reader,
    profile: Profile,
) -> list[ScoredPaper]:
    """The ranking on the reader's absolute scale, with the judge's evidence.

    Each paper's relevance comes from its best evidence (``rank.calibrate``): a verdict
    (``J + beta * (C - c_J)``, the judged calibration), else a screen
    (``S + gamma * (C - c_S)``), else its cheap relevance as ranked. Stars are the
    relevance's band; judged papers take the judge's line (an empty line stays empty) and
    reason, and ``components`` record
    ``judge`` (its stars), ``judge_relevance``, ``screen``, ``fused`` and ``relevance``; a
    paper the judge saw instructing it is flagged with one star. The whole day is ordered by
    relevance (ties: the cheap score, then the text), ``score`` is the relevance, ranks are
    renumbered 1..n.
    """
    if not verdicts and not screens:
        return list(ranking)
    calibrations, fusion = reader.calibrations, reader.fusion
    updated: list[ScoredPaper] = []
    for scored in ranking:
        cheap = scored.components.get("cheap", 0.0)
        components = dict(scored.components)
        verdict = verdicts.get(scored.paper.id)
        screen = screens.get(scored.paper.id)
        line, reason = scored.line, scored.reason
        if verdict is not None:
            fused = fusion.judged(judge_relevance(verdict), cheap)
            relevance = calibrations.judged.relevance(fused)
            components |= {
                "judge": float(verdict.stars),
                "judge_relevance": judge_relevance(verdict),
                "must_read": float(verdict.must_read),
                "fused": round(fused, 4),
            }
            line = scored.line if verdict.line is None else (verdict.line or None)
            reason = verdict.reason or scored.reason
        elif screen is not None:
            fused = fusion.screened(float(screen), cheap)
            relevance = calibrations.screened.relevance(fused)
            components["fused"] = round(fused, 4)
        else:
            relevance = scored.components.get("relevance", scored.score)
        if screen is not None:
            components["screen"] = float(screen)
        components["relevance"] = round(relevance, 4)
        judged = replace(
            scored,
            score=round(relevance, 2),
            stars=stars_of(relevance),
            line=line,
            reason=reason,
            components=components,
        )
        if (verdict is not None and verdict.instructions) or flags.has(scored, flags.INSTRUCTIONS):
            judged = flags.flag_instructions(judged, profile.language)
        updated.append(judged)
    order = np.lexsort(
        (
            np.array([text_hash(paper_text(s.paper)) for s in updated]),
            -np.array([s.components.get("cheap", 0.0) for s in updated]),
            -np.array([s.components["relevance"] for s in updated]),
        )
    )
    return [replace(updated[i], rank=n + 1) for n, i in enumerate(order)]


# ------------------------------------------------------------------ the strategies
@dataclass(frozen=True)
class Judged:
    """What a judge made of the day's ranking: the ranking (re-ordered, or the cheap one),
    the verdicts and screens to keep (by arXiv id, of ``model``), what its prompts cost, and
    the fallback when it failed."""

    ranking: list[ScoredPaper]
    verdicts: Mapping[str, Verdict] = field(default_factory=dict)
    model: str = ""
    fallback: Fallback | None = None
    screens: Mapping[str, int] = field(default_factory=dict)
    tokens: JudgeTokens | None = None


class Judge(Protocol):
    """Who judges the head of the cheap ranking."""

    @property
    def fingerprint(self) -> str:
        """What a ranking it judged is stored under, after the profile's fingerprint."""
        ...

    def judge(self, ranking: Sequence[ScoredPaper], profile: Profile, reader: Reader) -> Judged: ...


class NoJudge:
    """No LLM: the cheap ranking stands."""

    fingerprint = ""

    def judge(self, ranking: Sequence[ScoredPaper], profile: Profile, reader: Reader) -> Judged:
        return Judged(list(ranking))


class LLMJudge:
    """The LLM judge (``judge_ranking`` through ``LLMAnswers``), which keeps the errors it
    catches: whatever broke, the papers it could not judge keep what they had, and the
    fallback says why once (the judge's own list would repeat it per request)."""

    def __init__(self, client: StructuredLLM) -> None:
        self._client = client

    @property
    def model(self) -> str:
        return self._client.model_for("judge")

    @property
    def fingerprint(self) -> str:
        # A judged ranking is not interchangeable with a cheap one (e.g. from `rank`).
        return f":judge:{self.model}"

    def judge(self, ranking: Sequence[ScoredPaper], profile: Profile, reader: Reader) -> Judged:
        answers = LLMAnswers(self._client, profile, profile.llm.concurrency)
        try:
            result = judge_ranking(ranking, profile, answers, reader)
        except FATAL:
            raise
        except Exception as error:  # whatever broke, the cheap ranking stands
            return Judged(list(ranking), fallback=Fallback.of("ranking", error))
        judged = Judged(
            result.ranking, result.verdicts, self.model, None, result.screens, result.tokens
        )
        if not result.errors:
            return judged
        first = Fallback.of("ranking", result.errors[0])
        detail = shorten("; ".join(str(error) for error in result.errors[:2]), 300)
        return replace(judged, fallback=replace(first, detail=detail))


# ------------------------------------------------------------------ replay files
class JudgeReplayError(PaperbriefError):
    """A --judge-replay file is missing or malformed."""


REPLAY_FORMAT = (
    '{"YYYY-MM-DD": {"<arXiv id>": {"stars": 3, "relevance": 62, "line": "", "reason": "",'
    ' "must_read": false, "instructions": false, "screen": 58}}} (a paper only screened'
    ' has just "screen")'
)


@dataclass(frozen=True)
class Replay:
    """Recorded judge answers by listing day (ISO) then arXiv id."""

    verdicts: Mapping[str, Mapping[str, Verdict]]
    screens: Mapping[str, Mapping[str, int]]


def load_replay(path: Path) -> Replay:
    """Recorded verdicts and screens (the ``paperbrief judge export`` format, see
    ``replay_record``; files without ``relevance`` or ``screen`` still load)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        verdicts: dict[str, dict[str, Verdict]] = {}
        screens: dict[str, dict[str, int]] = {}
        for day, papers in data.items():
            for paper_id, v in papers.items():
                if "screen" in v and v["screen"] is not None:
                    screens.setdefault(str(day), {})[str(paper_id)] = int(v["screen"])
                if "stars" not in v:
                    if "screen" not in v:
                        raise KeyError(f"{paper_id} of {day} has neither stars nor a screen")
                    continue
                verdicts.setdefault(str(day), {})[str(paper_id)] = Verdict(
                    stars=int(v["stars"]),
                    line=None if v.get("line") is None else str(v["line"]),
                    reason=str(v.get("reason", "")),
                    must_read=bool(v.get("must_read", False)),
                    instructions=bool(v.get("instructions", False)),
                    relevance=None if v.get("relevance") is None else int(v["relevance"]),
                )
        return Replay(verdicts, screens)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise JudgeReplayError(
            f"cannot read judge replay {path}: {error}",
            f"expected {REPLAY_FORMAT} (as `paperbrief judge export` writes it)",
        ) from error


def replay_record(
    verdicts: Mapping[str, Verdict], screens: Mapping[str, int] | None = None
) -> dict[str, dict[str, object]]:
    """One day's verdicts and screens in the replay file format."""
    screens = screens or {}
    record: dict[str, dict[str, object]] = {}
    for paper_id in sorted(set(verdicts) | set(screens)):
        entry: dict[str, object] = {}
        v = verdicts.get(paper_id)
        if v is not None:
            entry = {
                "stars": v.stars,
                "relevance": v.relevance,
                "line": v.line,
                "reason": v.reason,
                "must_read": v.must_read,
                "instructions": v.instructions,
            }
        if paper_id in screens:
            entry["screen"] = screens[paper_id]
        record[paper_id] = entry
    return record


__all__ = [
    "Judge",
    "JudgeAnswer",
    "JudgeReplayError",
    "JudgeResult",
    "JudgeTokens",
    "JudgeVerdict",
    "Judged",
    "LLMAnswers",
    "LLMJudge",
    "NoJudge",
    "Replay",
    "ReplayAnswers",
    "Answers",
    "Verdict",
    "apply_verdicts",
    "judge_ranking",
    "load_replay",
    "replay_record",
]
