"""What the writer reads: the whole main body with evidence ids, or two passes; never a cut."""

from __future__ import annotations

from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.latexml import parse_latexml
from paperbrief.fulltext.reading import plan_reading
from paperbrief.fulltext.roles import roled_sections
from paperbrief.fulltext.units import build_units
from tests.support import FIXTURES

FULLTEXT = FIXTURES / "fulltext"

# The markup LaTeXML writes for \begin{table} with two \subfloat tables (subcaption).
SUBTABLES = """<html><body><article class="ltx_document">
<section class="ltx_section" id="S4"><h2 class="ltx_title ltx_title_section">
<span class="ltx_tag ltx_tag_section">4 </span>Results</h2>
<div class="ltx_para" id="S4.p1"><p class="ltx_p">Table 2(b) shows that groups of three and
four are harder: accuracy falls to 61.2%.</p></div>
<figure class="ltx_table" id="S4.T2">
<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_table">Table 2: </span>Accuracy by
group size.</figcaption>
<div class="ltx_flex_figure"><div class="ltx_flex_cell">
<figure class="ltx_table ltx_figure_panel" id="S4.T2.sf1">
<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_table">(a) </span>2-people</figcaption>
<table class="ltx_tabular" id="S4.T2.sf1.1"><thead><tr><th class="ltx_th">Model</th>
<th class="ltx_th">Acc. (%)</th></tr></thead><tbody><tr><td>Ours</td><td>78.4</td></tr>
<tr><td>Baseline</td><td>70.1</td></tr></tbody></table></figure></div>
<div class="ltx_flex_cell"><figure class="ltx_table ltx_figure_panel" id="S4.T2.sf2">
<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_table">(b) </span>
3-and-4-people</figcaption>
<table class="ltx_tabular" id="S4.T2.sf2.1"><thead><tr><th class="ltx_th">Model</th>
<th class="ltx_th">Acc. (%)</th></tr></thead><tbody><tr><td>Ours</td><td>61.2</td></tr>
<tr><td>Baseline</td><td>55.0</td></tr></tbody></table></figure></div></div></figure>
<figure class="ltx_figure" id="S4.F3"><svg></svg><figcaption class="ltx_caption">
<span class="ltx_tag ltx_tag_figure">Figure 3: </span>Accuracy falls with group size.
</figcaption></figure>
</section></article></body></html>"""


def test_every_main_body_paragraph_reaches_the_writer_with_its_ids():
    doc = read_local_file(FULLTEXT / "arxiv_html_2501.11120v1.html")
    plan = plan_reading(doc, 20000)
    assert plan.mode == "whole"
    text = plan.parts[0].text
    for section in roled_sections(doc):
        if section.appendix or section.role == "skip":
            continue
        for position in range(len(section.section.paragraphs)):
            for unit in plan.units.paragraphs[(section.index, position)]:
                assert f"[{unit}] " in text, (section.title, position)
    assert "| T2 | c1" in text and "| r1 |" in text  # tables carry row and column ids


def test_a_paper_longer_than_the_budget_is_read_in_parts_without_losing_a_paragraph():
    doc = read_local_file(FULLTEXT / "arxiv_html_2501.11120v1.html")
    plan = plan_reading(doc, 6000, chunk_tokens=4000)
    assert plan.mode == "two-pass" and len(plan.parts) >= 3
    sent = "\n".join(part.text for part in plan.parts)
    roled = roled_sections(doc)
    ids = [u for (index, _), units in plan.units.paragraphs.items() for u in units
           if not roled[index].appendix]  # fmt: skip
    assert all(f"[{unit}] " in sent for unit in ids)
    assert plan.essentials is not None
    limits = [s.title for s in plan.essentials.sections]
    assert "7 Limitations and future work" in limits and "8 Conclusion" in limits
    assert "**Table 2**" in plan.essentials.text  # the main tables go to the second pass whole


def test_sub_tables_keep_their_captions_and_the_text_can_point_at_them():
    doc = parse_latexml(
        SUBTABLES, arxiv_id="2606.00001", page_url="https://arxiv.org/html/2606.00001v1"
    )
    labels = [(t.label, t.caption, t.parent) for t in doc.tables]
    assert labels == [
        ("Table 2", "Accuracy by group size.", ""),
        ("Table 2a", "(a) 2-people", "Table 2"),
        ("Table 2b", "(b) 3-and-4-people", "Table 2"),
    ]
    units = build_units(doc)
    assert units.get("T2b.r1.c2").text == "Ours · Acc. (%): 61.2"
    text = plan_reading(doc, 20000).parts[0].text
    assert "(b) 3-and-4-people" in text and "| r1 | Ours | 61.2 |" in text


def test_a_figure_without_an_image_keeps_its_caption_and_its_anchor():
    doc = parse_latexml(SUBTABLES, arxiv_id="2606.00001")
    (figure,) = doc.figures
    assert (figure.url, figure.anchor) == ("", "S4.F3")
    assert "Accuracy falls with group size." in plan_reading(doc, 20000).figures
    assert doc.sections[0].anchors == ("S4.p1",)
