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
    assert (fourth.value, fourth.unit) == (7.0, "B")
    (name,) = find_numbers("GPT-4")
    assert name.in_name and not name.standalone


def test_token_estimate_counts_cjk_denser_than_latin():
    assert estimate_tokens("a" * 400) == 101
    assert estimate_tokens("中" * 150) == 101


def test_shorten_cuts_at_a_word_boundary_and_fit_respects_any_measure():
    assert shorten("one two three four", 9) == "one two …"
    assert shorten("short", 9) == "short"
    utf8 = lambda text: len(text.encode("utf-8"))  # noqa: E731
    cut = shorten_to_fit("今日总结很长很长", 10, utf8)
    assert utf8(cut) <= 10 and cut.endswith("…")
    assert shorten_to_fit("abc", 0) == ""


def test_clean_tex_undoes_the_escapes_of_abstracts():
    assert clean_tex(r"97.5\% faster ($\times$2.1) with~LoRA") == "97.5% faster (×2.1) with LoRA"
