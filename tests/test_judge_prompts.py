"""The judge's requests: compact enough for the day's budget to read a large head, and still
carrying what the judge needs (issue 19)."""

from __future__ import annotations

import json

from paperbrief.models import ScoredPaper
from paperbrief.profile import load_profile
from paperbrief.prompts import line_named
from paperbrief.rank.judge import ReplayAnswers, judge_ranking, prompt_tokens
from paperbrief.rank.judge_prompts import (
    JudgeAnswer,
    judge_messages,
    judge_profile,
    screen_messages,
    sent,
)
from paperbrief.rank.reader import Reader
from tests.support import EXAMPLE_PROFILE
from tests.support.rank import listed_paper

# An answer as the earlier, longer prompt's model wrote them (benchmarks/data replays).
EARLIER_ANSWER = {
    "papers": [
        {
            "key": "P01",
            "relevance": 62,
            "stars": 3,
            "line": "Agent 边际价值实证",
            "reason": "它在 SWE-bench 上做了消融。",
            "must_read": False,
            "instructions": False,
        }
    ]
}


def folded(text: str) -> str:
    return " ".join(text.replace("-", " ").casefold().split())


def test_the_judges_profile_keeps_every_line_its_phrases_and_what_to_avoid():
    profile = load_profile(EXAMPLE_PROFILE)
    text = judge_profile(profile)
    rows = text.splitlines()
    for number, line in enumerate(profile.research_lines, 1):
        row = next(r for r in rows if r.startswith(f"Line {number} — {line.name}"))
        assert " ".join(line.description.split()) in row
        # every one of the key phrases the writers' view shows is spelled, once
        for phrase in line.keywords[:5]:
            assert folded(phrase) in folded(row)
        label = row.split(":")[0].removeprefix(f"Line {number} — ")
        assert line_named(label, profile) == line.name  # the model's copy names the line
    assert all(topic.topic in text for topic in profile.avoid)
    assert all(asset.name in text for asset in profile.assets)


def test_an_answer_to_the_earlier_prompt_still_validates():
    answer = JudgeAnswer.model_validate_json(json.dumps(EARLIER_ANSWER, ensure_ascii=False))
    assert answer.papers[0].relevance == 62 and answer.papers[0].line == "Agent 边际价值实证"
    schema = json.loads(
        sent([{"role": "system", "content": ""}], JudgeAnswer)[0]["content"].split(
            "JSON Schema:\n"
        )[1]
    )
    verdict = schema["properties"]["papers"]["items"]
    assert set(verdict["properties"]) == set(EARLIER_ANSWER["papers"][0])
    assert verdict["properties"]["relevance"] == {"maximum": 100, "minimum": 0, "type": "integer"}
    assert "title" not in json.dumps(schema)  # pydantic's titles are paid for and say nothing


def papers(n: int) -> list[ScoredPaper]:
    abstract = "We measure what test execution is worth to coding agents. " * 6
    return [
        ScoredPaper(
            paper=listed_paper(i, f"Paper {i:03d} on agents", abstract),
            score=100.0 - i,
            stars=2,
            components={"cheap": 1.0 - i / n, "relevance": 50.0 - i / 10},
            line=None,
            reason="cheap",
            rank=i + 1,
        )
        for i in range(n)
    ]


def test_the_head_is_as_many_readings_as_the_budget_buys_after_the_screen():
    """The head's size comes from the measured request, not a constant: a longer taste block
    (a dearer request) reads fewer papers within the same budget, and each head is as many
    requests as fit in what the screen left."""
    profile = load_profile(EXAMPLE_PROFILE)
    budget = 120_000
    settings = {"judge_prompt_tokens": budget, "screen_top_k": 200, "judge_top_k": 0}
    profile = profile.model_copy(update={"rank": profile.rank.model_copy(update=settings)})
    cheap = papers(200)
    screens = {s.paper.id: 80 - i // 4 for i, s in enumerate(cheap)}
    heads = []
    for taste in ("(No feedback yet.)", "\n".join(f"- Kept title number {i}" for i in range(80))):
        result = judge_ranking(cheap, profile, ReplayAnswers({}, screens), Reader(taste=taste))
        per_paper = prompt_tokens(sent(judge_messages(profile, taste, [cheap[0].paper], ["P01"]),
                                       JudgeAnswer))  # fmt: skip
        left = budget - result.tokens.screen_prompt
        assert len(result.head) == left // per_paper and result.head_cut_by_budget
        assert result.tokens.prompt <= budget
        heads.append(len(result.head))
    assert heads[1] < heads[0]


def test_every_request_of_a_day_repeats_one_prefix_and_delimits_the_paper():
    profile = load_profile(EXAMPLE_PROFILE)
    taste = '<paper key="kept">\n- A kept title\n</paper>'
    one, two = (judge_messages(profile, taste, [s.paper], ["P01"]) for s in papers(2))
    assert one[0] == two[0] and taste in one[0]["content"]
    assert one[1]["content"].count('<paper key="P01">') == 1
    assert one[1]["content"].rstrip().endswith("</paper>")
    screen = screen_messages(profile, taste, [s.paper for s in papers(3)], ["S01", "S02", "S03"])
    assert screen[0]["content"].startswith(one[0]["content"].split("## Task")[0])
