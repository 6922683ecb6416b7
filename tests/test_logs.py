"""`paperbrief logs`: the LLM calls a real run made (against a loopback endpoint), summed
by day and role, with the cache hits of a rerun and a failure counted apart."""

from __future__ import annotations

import json
from datetime import date

from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.llm import LLMClient
from paperbrief.pipeline import RunOptions, run_day
from paperbrief.profile import LLMSettings, ModelPrice, load_profile
from paperbrief.services import Services
from paperbrief.store import open_store
from tests.conftest import PIPELINE_LISTING
from tests.support import EXAMPLE_PROFILE
from tests.support.openai_server import OpenAIServer
from tests.support.pipeline_llm import whole_run


def test_logs_sum_a_runs_calls_by_day_and_role_and_count_the_reruns_cache_hits(
    tmp_path, isolated_home, pipeline_vectors
):
    price = ModelPrice(input=1.0, output=2.0)
    settings = LLMSettings(
        model="loopback-writer", max_retries=0, prices={"loopback-writer": price}
    )
    profile = load_profile(EXAMPLE_PROFILE).model_copy(update={"llm": settings})
    with open_store(isolated_home / "paperbrief.db") as store, OpenAIServer(whole_run) as server:
        pipeline_vectors.seed(store)
        for force in (False, True):  # the rerun answers every call from the cache
            client = LLMClient(settings, store.llm, api_key="k", day="2026-05-23",
                               base_url=server.url)  # fmt: skip
            embedder = Services.build(
                profile, store, offline=True, encoder=pipeline_vectors.encoder
            )
            services = Services(embedder=embedder.embedder, llm=client)
            with services:
                options = RunOptions(
                    listing_file=PIPELINE_LISTING, out_dir=tmp_path / "out", force=force
                )
                run_day(store, profile, options, services, today=date(2026, 5, 23))
        sent = server.request_count
    result = CliRunner().invoke(
        cli, ["logs", "--since", "2026-05-23", "--until", "2026-05-23", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    roles = {row["role"]: row for row in report["days"]}
    assert set(roles) == {"judge", "writer", "writer-day"}
    assert report["total"]["calls"] == sent  # every request the endpoint saw, once
    assert all(row["cached"] == row["calls"] for row in roles.values())  # the rerun: all hits
    assert report["total"]["failed"] == 0
    tokens = report["total"]["prompt_tokens"], report["total"]["completion_tokens"]
    assert abs(report["total"]["cost"] - (tokens[0] * 1.0 + tokens[1] * 2.0) / 1e6) < 1e-6
    table = CliRunner().invoke(cli, ["logs", "--since", "2026-05-23", "--until", "2026-05-23"])
    assert "writer-day" in table.output and "total" in table.output
    each = ["logs", "--calls", "--until", "2026-05-23", "--days", "1", "--json"]
    calls = json.loads(CliRunner().invoke(cli, each).output)["calls"]
    assert len(calls) == 2 * sent and {c["outcome"] for c in calls} == {"ok", "cached"}
    assert CliRunner().invoke(cli, ["logs", "--since", "May 1"]).exit_code == 2
