"""Numbers written in words are numbers: Chinese numerals and scale words, English words."""

from __future__ import annotations

import pytest

from paperbrief.text import find_numbers


def read(text: str) -> list[tuple[str, float, str]]:
    return [(m.text, round(m.value * m.scale, 4), m.unit) for m in find_numbers(text)]


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("提升了两倍", 2.0, "x"),
        ("五成用户", 50.0, "%"),
        ("二十倍加速", 20.0, "x"),
        ("三千名参与者", 3000.0, ""),
        ("七个实验", 7.0, ""),
        ("百分之三十的用户", 30.0, "%"),
        ("近一半的模型", 50.0, "%"),
        ("翻倍", 2.0, "x"),
        ("约 1.2 万次会话", 12000.0, ""),
        ("seven field experiments", 7.0, ""),
        ("twice as fast", 2.0, "x"),
        ("a twentyfold speedup", 20.0, "x"),
    ],
)
def test_a_number_in_words_reads_as_its_value(text, value, unit):
    (mention,) = [m for m in find_numbers(text) if m.kind == "value"]
    assert round(mention.value * mention.scale, 4) == value
    assert mention.unit == unit


@pytest.mark.parametrize(
    "text",
    [
        "一个新基准",
        "结果一致",
        "三维模型",
        "第三步",
        "十分明显",
        "万一失败",
        "其中之一",
        "one of them",
    ],
)
def test_words_that_only_look_like_numbers_are_none(text):
    assert not [m for m in find_numbers(text) if m.kind == "value"]


def test_pairs_and_fractions_keep_both_numbers():
    pairs = {
        m.text: m.pair
        for m in find_numbers("4/5 的设置；four out of five runs；五分之四；三分之一")
    }
    assert pairs["4"] == (4.0, 5.0)
    assert pairs["four out of five"] == (4.0, 5.0)
    assert pairs["五分之四"] == (4.0, 5.0)
    assert pairs["三分之一"] == (1.0, 3.0)
    (digits,) = [m for m in find_numbers("in 4 out of 5 settings") if m.kind == "value"]
    assert digits.pair == (4.0, 5.0)


def test_rough_and_bounded_numbers_say_so():
    by_text = {
        m.text: m for m in find_numbers("约 83% 左右；more than 1,000 users；不到 5%；-4.5%")
    }
    assert by_text["83%"].approx
    assert by_text["1,000"].bound == "over"
    assert by_text["5%"].bound == "under"
    assert by_text["-4.5%"].negative


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("后门检测只在 5 个设置中的 4 个显著", (4.0, 5.0)),
        ("五个数据集里有四个", (4.0, 5.0)),
        ("1 in 5 patients find a mistake", (1.0, 5.0)),
        ("4 out of 5 settings", (4.0, 5.0)),
    ],
)
def test_a_part_of_a_whole_reads_as_a_pair(text, pair):
    (mention,) = find_numbers(text)
    assert mention.pair == pair


def test_a_dash_between_two_numbers_is_a_range_not_a_sign():
    low, high = find_numbers("improved by 11-17% in the automated metrics")
    assert (low.value, high.value, high.unit, high.negative) == (11.0, 17.0, "%", False)
    (negative,) = find_numbers("changed by -4.5%")
    assert negative.negative


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("often totaling over two hundred pages", 200.0),
        ("three thousand users", 3000.0),
        ("a small subset of documents (on average, eight) that", 8.0),
    ],
)
def test_english_number_words_in_compounds_and_after_a_quantifier(text, value):
    (mention,) = find_numbers(text)
    assert mention.value == value


def test_er_before_a_measure_word_is_an_ordinal_not_a_count():
    assert find_numbers("经二次审核的摘要") == []
    assert [m.value for m in find_numbers("审核两次")] == [2.0]


def test_a_tex_matrix_reads_as_its_entries():
    from paperbrief.text import clean_tex

    text = clean_tex(r"with $\displaystyle\beta=\begin{pmatrix}0.10&0.01&5.00\end{pmatrix}$.")
    assert text == "with β=(0.10, 0.01, 5.00)."
    assert [m.text for m in find_numbers(text)] == ["0.10", "0.01", "5.00"]
