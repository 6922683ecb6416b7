"""The shared text vocabulary: one sentence splitter, one number grammar, one token
estimate, one shortening rule."""

from __future__ import annotations

from paperbrief.text import (
    clean_tex,
    estimate_tokens,
    find_numbers,
    join_clauses,
    reported_numbers,
    shorten,
    shorten_to_fit,
    split_clauses,
    split_sentences,
)

ABSTRACT = (
    "Coding agents are costly to evaluate. We present TraceLens, a replay harness for public"
    " agent traces (e.g. OpenHands and Aider logs). Test execution adds only 1.25 percentage"
    " points on SWE-bench Verified. Results hold across 3 agent families, i.e. the effect is"
    " small."
)


def test_split_sentences_keeps_abbreviations_and_decimals():
    sentences = split_sentences(ABSTRACT)
    assert len(sentences) == 4
    assert any("(e.g. OpenHands and Aider logs)" in s for s in sentences)
    assert any("1.25 percentage points" in s for s in sentences)


def test_abbreviations_followed_by_digits_keep_their_numbers():
    sentences = split_sentences("As shown in Fig.2 the gain is large. See Sec.3 and approx.5 runs.")
    assert sentences == ["As shown in Fig.2 the gain is large.", "See Sec.3 and approx.5 runs."]


def test_clauses_split_chinese_without_spaces_and_join_back():
    clauses = split_clauses("准确率提升 4.3%。成本下降；但只测了 Python. It is small.")
    assert clauses == ["准确率提升 4.3%。", "成本下降；", "但只测了 Python.", "It is small."]
    assert join_clauses(clauses[:2] + clauses[3:]) == "准确率提升 4.3%。成本下降；It is small."


def test_reported_numbers_keep_units_and_leave_out_years_and_names():
    text = "adds 1.25 points and 4.3% at 2.01x, over 12,500 runs in 2025 with GPT-4o and Qwen2.5"
    assert reported_numbers(text) == ["1.25 points", "4.3%", "2.01x", "12,500"]


def test_number_mentions_carry_value_unit_sign_and_context():
    first, second, third, fourth = find_numbers("−3.2 pp, 12,500 runs, a 5-shot prompt, 7B")
    assert (first.value, first.unit, first.negative, first.decimals) == (3.2, "pp", True, 1)
    assert (second.value, second.grouped, second.standalone) == (12500.0, True, True)
    assert third.glued_after and not third.standalone  # 5-shot names a setting
    assert (fourth.value, fourth.unit, fourth.scale, fourth.quantity) == (7.0, "", 1e9, 7e9)
    (name,) = find_numbers("GPT-4")
    assert name.in_name and not name.standalone


def kinds(text: str) -> list[tuple[str, str]]:
    return [(m.text, m.kind) for m in find_numbers(text)]


def test_numbers_that_are_not_quantities_say_what_they_are():
    assert kinds("see Table 2, Sections 3.1–3.3, 表 4, 第 3 步, p. 12") == [
        ("2", "reference"), ("3.1", "reference"), ("3.3", "reference"), ("4", "reference"),
        ("3", "reference"), ("12", "reference"),
    ]  # fmt: skip
    # Chinese names a part with a word after the number (节 / 小节 / 章 / 页) or 例 before it
    assert kinds("4.1、4.2 节的评测；见 3.2 小节与第 5 章；例 4.3（m=5）") == [
        ("4.1", "reference"), ("4.2", "reference"), ("3.2", "reference"), ("5", "reference"),
        ("4.3", "reference"), ("5", "value"),
    ]  # fmt: skip
    # ... but a ratio (比例 0.3), cases (病例 30 例) and 12 章程 stay quantities
    assert kinds("比例 0.3；病例 30 例；共 12 章程") == [
        ("0.3", "value"), ("30", "value"), ("12", "value"),
    ]  # fmt: skip
    assert kinds("prior work [35] and [7, 21] is 24/7") == [
        ("35", "citation"), ("7", "citation"), ("21", "citation"), ("24", "ratio"), ("7", "ratio"),
    ]  # fmt: skip
    assert kinds("In 2019 (Smith, 2020) we fixed 2019 bugs; 2019 年; the 1990s") == [
        ("2019", "year"), ("2020", "year"), ("2019", "value"), ("2019 年", "year"),
        ("1990s", "year"),
    ]  # fmt: skip
    assert kinds("We ask “rate your risk from 0 to 100, please” and get 87") == [
        ("0", "quoted"), ("100", "quoted"), ("87", "value"),
    ]  # fmt: skip
    assert kinds("arXiv:2501.11120 at https://arxiv.org/abs/2501.11120") == [
        ("2501.11120", "identifier"), ("2501.11120", "identifier"),
    ]  # fmt: skip


def test_standard_errors_are_spreads_but_a_share_in_parentheses_is_a_value():
    assert kinds("0.0245 (0.0102), 0.14 ± 0.01, SE = 0.03, 1008 (17.07%)") == [
        ("0.0245", "value"), ("0.0102", "error"), ("0.14", "value"), ("0.01", "error"),
        ("0.03", "error"), ("1008", "value"), ("17.07%", "value"),
    ]  # fmt: skip
    (cell,) = find_numbers("(0.0102)")
    assert cell.kind == "error"  # a table cell that is only a parenthesised number


def test_units_and_scales_make_quantities():
    def quantity(text: str) -> tuple[str, float]:
        (mention,) = [m for m in find_numbers(text) if m.kind == "value"]
        return mention.dimension, round(mention.quantity, 6)

    assert quantity("31 million users") == quantity("3100 万 用户") == ("", 31e6)
    assert quantity("0.5 小时") == quantity("30 minutes") == ("time", 1800.0)
    assert quantity("7.36 seconds") != quantity("7.36 分钟")
    assert quantity("$4.6 million") == ("currency:USD", 4.6e6)
    assert quantity("187.4 yuan") == quantity("187.4 元") == ("currency:CNY", 187.4)
    assert quantity("2.5x faster") == quantity("2.5 倍") == ("times", 2.5)
    assert quantity("10.8 points") == quantity("10.8 个百分点") == ("percent", 10.8)
    assert quantity("ran for four weeks") == ("time", 4 * 604800.0)
    assert quantity("a zero-day window of zero days") == ("time", 0.0)  # the term is no number
    assert find_numbers("zero-day vulnerabilities") == []
    assert [m.text for m in find_numbers("33,551, 1,000, and .95")] == ["33,551", "1,000", ".95"]


def test_token_estimate_counts_cjk_denser_than_latin():
    assert estimate_tokens("a" * 400) == 101
    assert estimate_tokens("中" * 150) == 101


def test_shorten_cuts_at_a_word_boundary_and_fit_respects_any_measure():
    assert shorten("one two three four", 9) == "one two …"
    assert shorten("short", 9) == "short"
    assert shorten("PITMuS: A Tool for Bug Dataset Generation", 20) == "PITMuS: A Tool for …"
    assert (
        shorten("中文标题很长很长很长", 6) == "中文标题很长…"
    )  # every CJK character edge is a boundary
    utf8 = lambda text: len(text.encode("utf-8"))  # noqa: E731
    cut = shorten_to_fit("今日总结很长很长", 10, utf8)
    assert utf8(cut) <= 10 and cut.endswith("…")
    assert shorten_to_fit("abc", 0) == ""


def test_clean_tex_undoes_the_escapes_of_abstracts():
    assert clean_tex(r"97.5\% faster ($\times$2.1) with~LoRA") == "97.5% faster (×2.1) with LoRA"


def test_clean_tex_reads_math_as_text_and_repairs_garbled_text():
    assert clean_tex(r"uses $p^\star$ and $G^\star$ with $\alpha \leq 0.5$") == (
        "uses p* and G* with α ≤ 0.5"
    )
    assert (
        clean_tex(r"$x_{i}^{2}$ and $\frac{a}{b}$ and ``grafting''") == "xᵢ² and a/b and “grafting”"
    )
    # a TeX "~O" range that a converter turned into Õ, and UTF-8 read as Windows-1252
    assert clean_tex("O(1,000)Õ(10,000) devices, donâ€™t") == "O(1,000)~O(10,000) devices, don’t"
