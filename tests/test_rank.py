"""The cheap ranking: BM25, embeddings, priors, penalties, stars, reasons, picks."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date

import numpy as np
import pytest

from paperbrief.errors import ProfileError
from paperbrief.models import Listing, Paper, ScoredPaper, Signal
from paperbrief.profile import AvoidTopic, parse_profile
from paperbrief.rank import Embedder, flags, load_feedback, rank_papers, select_picks
from paperbrief.rank.bm25 import BM25Index
from paperbrief.rank.core import closest_lines, fuse
from paperbrief.rank.evaluate import load_listing_file
from paperbrief.rank.imported import RecordedPost, load_posts, record_posts
from paperbrief.rank.scorers import ScorerResult
from paperbrief.rank.taste import Examples, kernel_taste, lda_direction
from paperbrief.rank.text import tokenize
from paperbrief.store import open_store
from tests.support.rank import RANK_FIXTURES, rank_embedder, rank_profile  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def day_papers() -> list[Paper]:
    return load_listing_file(RANK_FIXTURES / "listings" / "2026-04-24.jsonl.gz")


def make_paper(paper_id: str, title: str, abstract: str, categories=("cs.SE",)) -> Paper:
    return Paper(
        id=paper_id,
        title=title,
        authors=("A. Author",),
        abstract=abstract,
        categories=tuple(categories),
        primary_category=categories[0],
        listings={categories[0]: "new"},
    )


def test_tokenize_stems_plurals_and_splits_hyphens():
    assert tokenize("Repairing programs") == tokenize("repair program")
    assert "fine" in tokenize("fine-tuning") and "finetun" in tokenize("fine-tuning")
    assert "the" not in tokenize("the agents")


def test_bm25_prefers_documents_with_rare_query_terms():
    docs = [tokenize(t) for t in ("program repair with llms", "image generation", "llms llms")]
    scores = BM25Index(docs).score({"repair": 1.0, "llm": 1.0})
    assert scores.argmax() == 0
    assert scores[1] == 0.0


def test_ranking_explains_every_paper(day_papers, profile, embedder):
    ranking = rank_papers(day_papers, profile, embedder)
    assert [s.rank for s in ranking] == list(range(1, len(day_papers) + 1))
    assert sorted(s.paper.id for s in ranking) == sorted(p.id for p in day_papers)
    assert all(a.score >= b.score for a, b in zip(ranking, ranking[1:], strict=False))
    names = {line.name for line in profile.research_lines}
    assert all(s.line in names and 1 <= s.stars <= 5 and s.reason for s in ranking)
    assert all(s.reason.startswith("契合「" + s.line) for s in ranking)
    assert any(s.matched_terms for s in ranking[:5])
    assert {"bm25", "embedding", "category", "avoid"} <= set(ranking[0].components)
    # Stars are calibrated: the head gets stars, most of the day gets one.
    assert ranking[0].stars >= 2
    assert sum(s.stars == 1 for s in ranking) > len(ranking) / 2


def test_ranking_finds_the_readers_picks_better_than_chance(day_papers, profile, embedder):
    picked = {"2604.21917", "2604.21771", "2604.21816", "2604.21916", "2604.21905"}
    ranking = rank_papers(day_papers, profile, embedder)
    top = {s.paper.id for s in ranking[:10]}
    # 10 of ~52 papers: chance would find about one of the five picks.
    assert len(picked & top) >= 3


def test_reason_follows_profile_language(day_papers, profile, embedder):
    english = profile.model_copy(update={"language": "en"})
    ranking = rank_papers(day_papers[:10], english, embedder)
    assert all(s.reason.startswith("Fits “") for s in ranking)


def test_avoid_topic_penalised_unless_its_exception_applies(profile, embedder):
    avoid = AvoidTopic(topic="jailbreaks", keywords=["jailbreak"], penalty=1.0, unless=["code"])
    custom = profile.model_copy(update={"avoid": [avoid]})
    papers = [
        make_paper("1", "Jailbreak prompts for chat models", "We study jailbreak attacks."),
        make_paper("2", "Jailbreak prompts for code models", "We study jailbreak attacks on code."),
        make_paper("3", "Program repair with LLM agents", "Agents fix bugs in repositories."),
    ]
    by_id = {s.paper.id: s for s in rank_papers(papers, custom, embedder)}
    assert by_id["1"].components["avoid"] < 0
    assert by_id["2"].components["avoid"] == 0
    assert by_id["3"].components["avoid"] == 0
    assert "降权" in by_id["1"].reason


def test_category_prior_lifts_preferred_category(profile, embedder):
    text = "A study of large language models for reasoning over tables."
    papers = [
        make_paper("se", "Table reasoning", text, ("cs.SE",)),
        make_paper("cl", "Table reasoning", text, ("cs.CL",)),
    ]
    boosted = profile.model_copy(
        update={"rank": profile.rank.model_copy(update={"category_prior": {"cs.SE": 1.0}})}
    )
    ranking = rank_papers(papers, boosted, embedder)
    assert ranking[0].paper.id == "se"


class RefusingEncoder:
    """An encoder that must not be asked: everything should come from the cache."""

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        raise AssertionError(f"the model was asked for {len(texts)} texts")


def test_embeddings_are_cached_in_the_store(tmp_path, day_papers, encoder):
    store = open_store(tmp_path / "db.sqlite")
    vectors = Embedder(cache=store.embeddings, encoder=encoder).embed(
        [p.title for p in day_papers[:5]]
    )
    again = Embedder(cache=store.embeddings, encoder=RefusingEncoder()).embed(
        [p.title for p in day_papers[:5]]
    )
    np.testing.assert_allclose(vectors, again, rtol=1e-6)  # served from the store
    store.close()


def scored(paper_id: str, score: float, stars: int, line: str) -> ScoredPaper:
    paper = make_paper(paper_id, paper_id, "")
    return ScoredPaper(paper=paper, score=score, stars=stars, line=line)


def test_picks_spread_across_lines_and_honour_limits(profile):
    ranking = [
        scored("a1", 5.0, 4, "A"),
        scored("a2", 4.9, 3, "A"),
        scored("a3", 4.8, 3, "A"),
        scored("b1", 4.5, 3, "B"),
        scored("c1", 4.4, 3, "C"),
        scored("a4", 4.3, 3, "A"),
        *(scored(f"low{i}", 0.0, 1, "B") for i in range(30)),  # the rest of the day
    ]
    ranking = [replace(s, rank=i + 1) for i, s in enumerate(ranking)]
    settings = profile.rank.model_copy(update={"diversity": 1.0})
    spread = profile.model_copy(update={"picks_per_day": 4, "rank": settings})
    picks = select_picks(ranking, spread)
    assert [p.paper.id for p in picks] == ["a1", "b1", "c1", "a2"]
    focused = spread.model_copy(update={"rank": settings.model_copy(update={"diversity": 0.0})})
    assert [p.paper.id for p in select_picks(ranking, focused)] == ["a1", "a2", "a3", "b1"]


def test_thin_day_publishes_fewer_picks_and_says_so(profile):
    ranking = [
        scored("x", 3.0, 3, "A"),
        scored("y", 0.5, 1, "B"),
        scored("z", 0.4, 1, "A"),
        scored("w", 0.3, 1, "A"),
    ]
    ranking = [replace(s, rank=i + 1) for i, s in enumerate(ranking)]
    strict = profile.model_copy(update={"min_stars": 2, "picks_per_day": 5})
    picks = select_picks(ranking, strict)
    # No one-star top-up: the day has one paper worth reading, and the selection says so.
    assert [p.paper.id for p in picks] == ["x"]
    assert picks.short and picks.missing == 4 and picks.qualified == 1


def test_flagged_papers_are_never_picked_and_counted_as_held_back(profile):
    ranking = [
        replace(scored("evil", 9.0, 5, "A"), components={flags.INSTRUCTIONS: 1.0}),
        replace(scored("seen", 8.0, 4, "B"), components={flags.PICKED_BEFORE: 1.0}),
        replace(scored("hid", 7.0, 4, "C"), components={flags.HIDDEN: 1.0}),
        replace(scored("new", 6.0, 4, "A"), components={flags.FOLLOW_UP: 1.0}),
        scored("ok", 5.0, 3, "B"),
    ]
    ranking = [replace(s, rank=i + 1) for i, s in enumerate(ranking)]
    picks = select_picks(ranking, profile.model_copy(update={"picks_per_day": 4}))
    assert [p.paper.id for p in picks] == ["new", "ok"]  # a follow-up may be picked
    assert picks.held_back == 3 and picks.missing == 2


def test_no_line_takes_more_than_half_the_picks_when_others_qualify(profile):
    ranking = [scored(f"a{i}", 5.0 - i / 10, 3, "A") for i in range(6)]
    ranking += [scored("b1", 3.0, 3, "B")]
    ranking = [replace(s, rank=i + 1) for i, s in enumerate(ranking)]
    some = profile.model_copy(
        update={"picks_per_day": 4, "rank": profile.rank.model_copy(update={"diversity": 0.1})}
    )
    assert [p.paper.id for p in select_picks(ranking, some)] == ["a0", "a1", "b1", "a2"]
    none = some.model_copy(update={"rank": some.rank.model_copy(update={"diversity": 0.0})})
    assert [p.paper.id for p in select_picks(ranking, none)] == ["a0", "a1", "a2", "a3"]


def test_feedback_lifts_papers_like_the_ones_picked(tmp_path, profile, embedder):
    liked = [
        make_paper(f"p{i}", f"Graph neural networks for molecules {i}", "Molecular property GNN.")
        for i in range(4)
    ]
    disliked = [
        make_paper(f"n{i}", f"Program repair agents {i}", "LLM agents repair software bugs.")
        for i in range(25)
    ]
    store = open_store(tmp_path / "db.sqlite")
    store.listings.save(Listing(date(2026, 4, 1), tuple(liked + disliked), source="test"))
    for paper in liked:
        store.feedback.add(paper.id, Signal("up"), created_at="2026-04-01T12:00:00+00:00")
    for paper in disliked:
        store.feedback.add(paper.id, Signal("shown"), created_at="2026-04-01T12:00:00+00:00")
    today = [
        make_paper("mol", "A GNN for molecular graphs", "We predict molecular properties."),
        make_paper("apr", "Repairing bugs with agents", "LLM agents repair software bugs."),
    ]
    model = load_feedback(
        store.feedback, store.listings, embedder, before="2026-04-02T00:00:00+00:00"
    )
    assert model.ready and model.positives == 4 and model.negatives == 25
    by_id = {s.paper.id: s for s in rank_papers(today, profile, embedder, feedback=model)}
    assert by_id["mol"].components["feedback"] > by_id["apr"].components["feedback"]
    without = {s.paper.id: s for s in rank_papers(today, profile, embedder)}
    assert by_id["mol"].components["cheap"] > without["mol"].components["cheap"]
    # Feedback recorded after the cut-off is not used.
    late = load_feedback(
        store.feedback, store.listings, embedder, before="2026-04-01T00:00:00+00:00"
    )
    assert not late.ready
    store.close()


def test_permuting_the_ids_of_a_day_gives_the_same_ranking(tmp_path, day_papers, profile, embedder):
    # A learner trained on two earlier days, then today's ids permuted and order shuffled:
    # only the papers' content and the reader's feedback may rank, never an id or position.
    store = open_store(tmp_path / "db.sqlite")
    posts = [p for p in load_posts(RANK_FIXTURES / "picks.json") if p.listing_day.day < 24]
    for post in posts:
        papers = load_listing_file(RANK_FIXTURES / "listings" / f"{post.listing_day}.jsonl.gz")
        store.listings.save(Listing(post.listing_day, tuple(papers), source="test"))
    record_posts(store.feedback, posts, source="test")
    model = load_feedback(store.feedback, store.listings, embedder, profile.rank)
    assert model.ready and model.negatives > 0
    ranking = rank_papers(day_papers, profile, embedder, feedback=model)
    assert any(s.components["feedback"] != 0 for s in ranking)

    ids = [p.id for p in day_papers]
    shuffled = list(ids)
    random.Random(3).shuffle(shuffled)
    permuted = [replace(p, id=new) for p, new in zip(day_papers, shuffled, strict=True)]
    random.Random(4).shuffle(permuted)
    again = rank_papers(permuted, profile, embedder, feedback=model)
    assert [s.paper.title for s in again] == [s.paper.title for s in ranking]
    assert [s.score for s in again] == [s.score for s in ranking]
    assert [s.stars for s in again] == [s.stars for s in ranking]
    store.close()


def test_only_papers_the_reader_saw_become_negatives(tmp_path, embedder):
    store = open_store(tmp_path / "db.sqlite")
    papers = [make_paper(f"2604.{i:05d}", f"Paper {i}", "Text.") for i in range(12)]
    store.listings.save(Listing(date(2026, 4, 1), tuple(papers), source="test"))
    shown = tuple(p.id for p in papers[:6])  # the other six were never shown
    post = RecordedPost(date(2026, 4, 2), date(2026, 4, 1), (("2604.00001", 3),), shown)
    second = RecordedPost(date(2026, 4, 3), date(2026, 4, 1), (("2604.00002", 2),), shown)
    added = record_posts(store.feedback, [post, second], source="test")
    # A paper picked by one post of the day is not a negative of the other.
    assert (added.picked, added.shown) == (2, 4)
    assert record_posts(store.feedback, [post, second], source="test").skipped == 6
    model = load_feedback(store.feedback, store.listings, embedder)
    assert (model.positives, model.negatives) == (2, 4)
    early = load_feedback(
        store.feedback, store.listings, embedder, before="2026-04-01T00:00:00+00:00"
    )
    assert (early.positives, early.negatives) == (0, 0) and not early.ready
    store.close()


def test_taste_prefers_what_was_kept_over_what_was_passed_over():
    rng = np.random.default_rng(0)
    liked_centre, passed_centre = np.eye(8)[0], np.eye(8)[1]

    def around(centre: np.ndarray, count: int) -> np.ndarray:
        points = centre + 0.3 * rng.standard_normal((count, 8))
        return points / np.linalg.norm(points, axis=1, keepdims=True)

    vectors = np.vstack([around(liked_centre, 5), around(passed_centre, 40)])
    labels = np.array([1.0] * 5 + [0.0] * 40)
    examples = Examples(vectors, labels, np.ones(45))
    today = np.vstack([around(liked_centre, 1), around(passed_centre, 1)])
    near_liked, near_passed = kernel_taste(today, examples)
    assert near_liked > near_passed
    direction = lda_direction(examples)
    assert direction is not None
    assert today[0] @ direction > today[1] @ direction
    # Without negatives the positives' density alone still ranks; LDA needs both classes.
    only_liked = Examples(vectors[:5], labels[:5], np.ones(5))
    assert np.diff(kernel_taste(today, only_liked))[0] < 0
    assert lda_direction(only_liked) is None


def test_line_label_is_the_line_the_paper_is_closest_to():
    # Paper 0 scores through line 1's key phrase (fused best: line 1) but its meaning is
    # closest to line 0; paper 1 is close to line 1 in both.
    embedding = ScorerResult("embedding", per_line=np.array([[0.9, 0.1], [0.1, 0.8], [0.5, 0.5]]))
    bm25 = ScorerResult("bm25", per_line=np.array([[0.0, 9.0], [0.0, 1.0], [0.0, 0.0]]), weight=3.0)
    fused, best, _ = fuse([embedding, bm25], np.ones(2), 3)
    assert best[0] == 1
    assert closest_lines([embedding, bm25], best).tolist()[:2] == [0, 1]
    assert closest_lines([bm25], best).tolist() == best.tolist()  # no embedding: as scored


def test_the_removed_submission_order_switch_is_an_unknown_key():
    text = (RANK_FIXTURES / "profile.toml").read_text(encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        parse_profile(text.replace("[rank]\n", "[rank]\nlearn_submission_order = true\n"))
    assert "rank.learn_submission_order" in caught.value.message
    assert "remove it" in caught.value.message
    tuned = parse_profile(
        text.replace("[rank]\n", "[rank]\nfeedback_weight = 0.5\nfeedback_ramp_positives = 5\n")
    )
    assert (tuned.rank.feedback_weight, tuned.rank.feedback_ramp_positives) == (0.5, 5)
