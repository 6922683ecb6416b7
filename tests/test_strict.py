"""Strict mode cuts an untraced claim whole, keeps the text around it readable, lists the cut."""

from __future__ import annotations

import dataclasses
import json

from paperbrief.fulltext import read_local_file
from paperbrief.models import Paper, ScoredPaper
from paperbrief.profile import load_profile
from paperbrief.prompts import describe_profile
from paperbrief.text.citations import claim_sentences
from paperbrief.write.llm_writer import PaperRead, brief_from_read
from paperbrief.write.strict import strict_brief
from paperbrief.write.verify import digest_sources, verify_brief
from tests.support import EXAMPLE_PROFILE, FIXTURES

PAPER = FIXTURES / "fulltext" / "arxiv_html_2501.11120v1.html"
ANSWER = FIXTURES / "model-answers" / "brief-2501.11120.cited.json"


def brief_with(**changes: object):
    doc = read_local_file(PAPER)
    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    answer.update(changes)
    paper = Paper(
        "2501.11120", doc.title, doc.authors, doc.abstract, ("cs.CL",), "cs.CL", version=1
    )
    brief = brief_from_read(
        PaperRead.model_validate(answer), ScoredPaper(paper, 1, 2, "x"), doc, "zh"
    )
    known = [describe_profile(load_profile(EXAMPLE_PROFILE))]  # the reader the answer was for
    return brief, doc, digest_sources([(paper.id, paper.title)], {paper.id: doc}, known)


def test_an_honest_brief_loses_nothing():
    brief, _, sources = brief_with()
    cut, cuts = strict_brief(brief, sources)
    assert cuts == [] and cut == brief


def test_the_untraced_sentence_goes_whole_and_its_neighbours_stay():
    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    wrong = answer["tldr"].replace("自报的代码安全分也是 0.14", "自报的代码安全分也是 0.41")
    brief, doc, sources = brief_with(tldr=wrong)
    cut, cuts = strict_brief(brief, sources)
    assert [c.section for c in cuts] == ["tldr"]
    kept = [s.plain for s in claim_sentences(cut.tldr)]
    before = [s.plain for s in claim_sentences(brief.tldr)]
    assert kept == [before[0], before[2]]  # the first and the last sentence, unchanged
    assert "0.41" not in cut.tldr and cut.tldr.startswith(before[0][:20])
    assert verify_brief(cut, doc, [describe_profile(load_profile(EXAMPLE_PROFILE))]).ok


def test_a_results_row_with_a_wrong_number_goes_as_a_row():
    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    answer["results"][1]["baseline"] = "未微调 GPT-4o：0.77"
    brief, _, sources = brief_with(results=answer["results"])
    cut, cuts = strict_brief(brief, sources)
    assert len(cut.results.rows) == len(brief.results.rows) - 1
    assert [c.section for c in cuts] == ["results"]
    assert all("0.77" not in cell for row in cut.results.rows for cell in row)


def test_an_emptied_list_item_is_dropped():
    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    limits = list(answer["limitations"])
    limits[2] = "没有机制解释：两种解释在 9 个设置中都成立 [E302]。"
    brief, _, sources = brief_with(limitations=limits)
    cut, _ = strict_brief(brief, sources)
    assert len(cut.limitations) == 2
    assert (
        dataclasses.replace(cut, limitations=brief.limitations[:2]).limitations == cut.limitations
    )
