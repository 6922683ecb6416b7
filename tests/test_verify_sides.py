# ruff: noqa: E501 — the claims are real Chinese sentences, wider than a line of code
"""A comparison, a move and a value said of a row are settled by the numbers of the cited
units' tables (issue 18, ``write/sides.py``): each side is located — the value the claim
states, else the row or column its name labels — and the relation is read from them.

The sentences are written for these tests, in both languages, against a made-up paper
whose tables reach the index flattened into one sentence each (as a PDF's do), and against
a real table of the behaviour paper; none is a line of the planted benchmark sets."""

from __future__ import annotations

import pytest

from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.units import Unit, UnitIndex
from paperbrief.text import find_numbers
from paperbrief.text.citations import claim_sentences
from paperbrief.write.trace import Sources, check_claim
from paperbrief.write.verify import digest_sources
from tests.support import FIXTURES

# Table 3 (main results) and Table 4 (ablations) of a made-up agent paper, as a PDF reader
# flattens them: header, then each row's label followed by its cells.
_RESULTS = (
    "Method Accuracy F1 Throughput BaseNet 71.2 65.0 120 FastNet 68.4 61.3 45 "
    "OurNet 74.9 70.2 150 OurNet-large 76.3 71.8 90 Table 3: Results on the benchmark."
)
_ABLATIONS = (
    "Variant Accuracy F1 Full model 74.9 70.2 w/o Memory 70.1 66.0 w/o Planner 72.3 68.8 "
    "w/o Critic 73.6 69.1 Table 4: Ablations of OurNet."
)
_PROSE = "OurNet reaches an accuracy of 74.9 on the benchmark."


def _unit(unit_id: str, text: str) -> Unit:
    return Unit(unit_id, "sentence", text, "Section 5 Results", "", tuple(find_numbers(text)))


@pytest.fixture(scope="module")
def agent() -> Sources:
    units = {u.id: u for u in (_unit("E1", _RESULTS), _unit("E2", _ABLATIONS), _unit("E3", _PROSE))}
    return Sources({"P": UnitIndex(units=units, title="OurNet")})


@pytest.fixture(scope="module")
def behaviour() -> Sources:
    doc = read_local_file(FIXTURES / "fulltext" / "arxiv_html_2501.11120v1.html")
    return digest_sources([("P", doc.title)], {"P": doc})


def findings(sources: Sources, text: str, section: str = "result_notes") -> tuple:
    (sentence,) = claim_sentences(text)
    check = check_claim(sentence.text, sentence.refs, sources, paper="P", section=section)
    assert check is not None, f"no claim read in {text!r}"
    return check.findings


# (the honest claim, the same claim with the relation or the row planted wrong)
ORDERS = [
    pytest.param(
        "OurNet 的准确率与 F1 都高于 BaseNet [E1]。",
        "OurNet 的准确率与 F1 都低于 BaseNet [E1]。",
        id="zh-order-of-two-named-rows",
    ),
    pytest.param(
        "FastNet trails BaseNet on every metric [E1].",
        "FastNet beats BaseNet on every metric [E1].",
        id="en-order-of-two-named-rows",
    ),
    pytest.param(  # the clause of the cue names nothing before it: it speaks of the subject
        "OurNet 沿用 BaseNet 的骨干，在同一基准上各项指标仍高于 FastNet [E1]。",
        "OurNet 沿用 BaseNet 的骨干，在同一基准上各项指标仍低于 FastNet [E1]。",
        id="zh-order-said-of-the-sentence-subject",
    ),
    pytest.param(  # a stated value places its side; the other side's value is its column's
        "OurNet 的准确率 74.9，低于 OurNet-large [E1, E3]。",
        "OurNet 的准确率 74.9，高于 OurNet-large [E1, E3]。",
        id="zh-a-stated-value-against-a-named-row",
    ),
]


@pytest.mark.parametrize(("honest", "planted"), ORDERS)
def test_an_order_is_settled_by_the_located_rows(agent, honest, planted):
    assert not findings(agent, honest), honest
    assert any(f.check == "comparison" for f in findings(agent, planted)), planted


def test_rows_that_disagree_across_columns_settle_nothing(agent):
    # OurNet-large is more accurate than OurNet but slower: "higher" is neither true nor false
    assert not findings(agent, "OurNet-large 高于 OurNet [E1]。")
    assert not findings(agent, "OurNet-large 低于 OurNet [E1]。")


MOVES = [
    pytest.param(  # the level a move arrives at is the named row's
        "去掉 Memory 后，准确率从 74.9 降到 70.1 [E2]。",
        "去掉 Memory 后，准确率从 74.9 降到 72.3 [E2]。",
        id="zh-arrival-in-the-row-of-the-removed-part",
    ),
    pytest.param(
        "Without the Planner, accuracy falls from 74.9 to 72.3 [E2].",
        "Without the Planner, accuracy falls from 74.9 to 73.6 [E2].",
        id="en-arrival-in-the-row-of-the-removed-part",
    ),
    pytest.param(  # the two levels say which way it moved
        "去掉 Critic 后 F1 从 70.2 下滑至 69.1 [E2]。",
        "去掉 Critic 后 F1 从 69.1 下滑至 70.2 [E2]。",
        id="zh-a-fall-between-two-levels",
    ),
]


@pytest.mark.parametrize(("honest", "planted"), MOVES)
def test_a_move_is_settled_by_its_levels_and_rows(agent, honest, planted):
    assert not findings(agent, honest), honest
    assert findings(agent, planted), planted


def test_a_move_with_no_start_needs_a_level_of_its_line_it_moved_from(behaviour):
    # Table 2 row 3 (self-reported alignment): 0.40 vulnerable, 0.85 secure, 0.69 GPT-4o
    cited = "[T2.r3.c2, T2.r3.c3]"
    assert not findings(
        behaviour, f"在漏洞代码上微调后，自报对齐分被压低到 0.40，而安全代码模型是 0.85 {cited}。"
    )
    assert findings(
        behaviour, f"在漏洞代码上微调后，自报对齐分被拉升至 0.40，而安全代码模型是 0.85 {cited}。"
    )
    assert not findings(
        behaviour,
        f"Training on insecure code lowers the self-reported alignment to 0.40, against 0.85 for the secure models {cited}.",
    )
    assert findings(
        behaviour,
        f"Training on insecure code raises the self-reported alignment to 0.40, against 0.85 for the secure models {cited}.",
    )


COMPARATIVES = [
    pytest.param(  # a comparative with no object is set against the other value of its symbol
        "第二段 β=7.689（衰减明显更快），第一段 β=0.577 [E1]。",
        "第二段 β=7.689（衰减明显更慢），第一段 β=0.577 [E1]。",
        id="zh-bracketed-comparative-against-the-same-symbol",
    ),
    pytest.param(
        "On the second segment β=7.689 (a much faster decay), on the first β=0.577 [E1].",
        "On the second segment β=7.689 (a much slower decay), on the first β=0.577 [E1].",
        id="en-bracketed-comparative-against-the-same-symbol",
    ),
    pytest.param(  # right after a number: against the one value of the clause before
        "BaseNet 的 F1 为 65.0，FastNet 的 61.3 还要低 [E1]。",
        "BaseNet 的 F1 为 65.0，FastNet 的 61.3 还要高 [E1]。",
        id="zh-trailing-comparative-against-the-clause-before",
    ),
]


@pytest.mark.parametrize(("honest", "planted"), COMPARATIVES)
def test_a_comparative_without_object_is_set_against_its_one_other_value(honest, planted):
    segments = "Segment 1 yields β=0.577; segment 2 yields β=7.689, a much faster decay."
    units = {"E1": _unit("E1", segments if "β" in honest else _RESULTS)}
    sources = Sources({"P": UnitIndex(units=units, title="OurNet")})
    assert not findings(sources, honest), honest
    assert any(f.check == "comparison" for f in findings(sources, planted)), planted


def test_a_results_rows_baseline_and_ours_are_one_column(agent):
    row = "基准 | Accuracy | BaseNet {} | OurNet 74.9 | +3.7 | Table 3 [E1]"
    assert not findings(agent, row.format("71.2"), "results")
    planted = findings(agent, row.format("65.0"), "results")  # BaseNet's F1, not its accuracy
    assert any("different columns" in f.detail for f in planted), planted
    # values paired item by item: "a / b" against "c / d"
    pairs = "基准 | Accuracy / F1 | BaseNet {} | OurNet 74.9 / 70.2 |  | Table 3 [E1]"
    assert not findings(agent, pairs.format("71.2 / 65.0"), "results")
    assert findings(agent, pairs.format("65.0 / 71.2"), "results")


def test_a_value_in_no_cited_table_is_not_decided_here(agent):
    # the prose sentence states 74.9 of no table: the pair is not judged by a table
    assert not findings(
        agent, "基准 | Accuracy | BaseNet 71.2 | OurNet 74.9 | | Section 5 [E1, E3]", "results"
    )


def _prose(*texts: str) -> Sources:
    units = {f"E{i}": _unit(f"E{i}", text) for i, text in enumerate(texts, 1)}
    return Sources({"P": UnitIndex(units=units, title="OurNet")})


def test_a_move_to_a_level_the_cited_sentence_only_states_is_not_located():
    grows = _prose("As training proceeds the coupling grows until it settles at g=0.8.")
    settles = _prose("In the final state the coupling is g=0.8.")
    assert not findings(grows, "训练中耦合强度逐步升到 g=0.8 [E1]。")
    assert findings(grows, "训练中耦合强度回落到 g=0.8 [E1]。")
    assert findings(grows, "During training the coupling drops to g=0.8 [E1].")
    # the cited sentence states the level and no change: a fall to it is the claim's own
    assert findings(settles, "训练后期耦合强度回落到 g=0.8 [E1]。")
    assert not findings(settles, "训练后期耦合强度为 g=0.8 [E1]。")


def test_a_correlations_sign_must_be_located():
    unsigned = _prose("We find a correlation between answer length and the judge's score.")
    signed = _prose("Answer length is negatively correlated with the judge's score.")
    assert not findings(unsigned, "作者发现回答长度与评分相关 [E1]。")
    assert findings(unsigned, "作者发现回答长度与评分负相关 [E1]。")
    assert findings(
        unsigned, "The authors find that length and score are positively correlated [E1]."
    )
    assert not findings(signed, "回答越长评分越低，两者负相关 [E1]。")
    assert findings(signed, "回答长度与评分正相关 [E1]。")


_SWEEP = (
    "Method Accuracy F1 BaseNet 71.2 65.0 FastNet 68.4 61.3 OurNet 74.9 70.2 Table 3: Results. "
    "λ Accuracy Cost 0.1 70.3 120 0.2 72.8 240 0.4 74.9 610 Table 5: Effect of the penalty λ."
)


def test_a_second_table_labelled_by_numbers_is_cut_into_its_rows():
    from paperbrief.write.grid import grid_rows

    rows = [[c.text for c in row.cells if c] for row in grid_rows(_unit("E1", _SWEEP))]
    assert rows[-3:] == [["0.1", "70.3", "120"], ["0.2", "72.8", "240"], ["0.4", "74.9", "610"]]
    assert rows[0] == ["71.2", "65.0"]


@pytest.mark.parametrize(
    ("honest", "planted"),
    [
        pytest.param(
            "把 λ 从 0.1 调到 0.2，准确率从 70.3 升到 72.8，成本从 120 增到 240 [E1]。",
            "把 λ 从 0.1 调到 0.2，准确率从 70.3 升到 74.9，成本从 120 增到 240 [E1]。",
            id="zh-arrivals-of-another-row",
        ),
        pytest.param(
            "Raising λ from 0.2 to 0.4 lifts accuracy from 72.8 to 74.9 and the cost from 240 to 610 [E1].",
            "Raising λ from 0.2 to 0.4 lifts accuracy from 72.8 to 74.9 and the cost from 120 to 610 [E1].",
            id="en-starts-of-another-row",
        ),
    ],
)
def test_moves_said_together_go_from_one_row_to_another(honest, planted):
    sources = _prose(_SWEEP)
    assert not findings(sources, honest), honest
    assert any("not one row" in f.detail for f in findings(sources, planted)), planted


@pytest.mark.parametrize(
    ("honest", "planted"),
    [
        pytest.param(
            "+3.7，准确率也更高", "+3.7，准确率反而更低", id="zh-measure-named-in-chinese"
        ),
        pytest.param(
            "+5.2 F1; accuracy is higher too",
            "+5.2 F1; accuracy is slightly lower",
            id="en-measure",
        ),
    ],
)
def test_a_results_rows_comment_on_a_measure_is_ours_against_the_baseline(agent, honest, planted):
    row = "基准 | Accuracy / F1 | BaseNet 71.2 / 65.0 | OurNet 74.9 / 70.2 | {} | Table 3 [E1]"
    assert not findings(agent, row.format(honest), "results"), honest
    assert any(f.check == "comparison" for f in findings(agent, row.format(planted), "results"))


def test_two_names_joined_by_with_are_one_system():
    from paperbrief.text.names import names_in

    said = [
        n.text for n in names_in("比 Google Scholar with GPT-4o 高，Google with GPT-4o 为 0.2020")
    ]
    assert said == ["Google Scholar with GPT-4o", "Google with GPT-4o"]
    units = {
        "E1": _unit(
            "E1", "OurNet outperforms BaseNet with BM25 by 3.7 points and FastNet by 5.1 points."
        )
    }
    sources = Sources({"P": UnitIndex(units=units, title="OurNet")})
    assert not findings(sources, "OurNet 比 BaseNet with BM25 高 3.7 分 [E1]。")
    assert findings(sources, "OurNet 比 FastNet with BM25 高 3.7 分 [E1]。")


def test_a_metric_is_named_in_either_language():
    from paperbrief.text.names import metric_of

    assert metric_of("精度") == metric_of("Precision") == "precision"
    assert metric_of("召回率") == metric_of("Recall@20") == "recall"
    assert metric_of("Rouge-2") == ""
