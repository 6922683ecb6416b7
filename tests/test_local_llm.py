"""The local-LLM recipe (examples/llm-local.toml: Ollama, vLLM, llama.cpp server) pasted
into a profile, run against a real OpenAI-compatible server on loopback: no key sent, one
request at a time, JSON mode dropped when the server refuses it, no cost charged."""

from __future__ import annotations

import re
from datetime import date

import pytest

from paperbrief.environment import warnings
from paperbrief.pipeline import RunOptions, run_day
from paperbrief.profile import load_profile
from paperbrief.services import Services
from paperbrief.store import open_store
from tests.conftest import PIPELINE_LISTING
from tests.support import EXAMPLE_PROFILE, ROOT
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.pipeline_llm import whole_run

RECIPE = ROOT / "examples" / "llm-local.toml"


def recipe_profile(folder, url: str):
    """The example profile with the recipe's [llm] table, its base URL pointed at ``url``."""
    recipe = re.sub(r'base_url = "[^"]+"', f'base_url = "{url}"', RECIPE.read_text("utf-8"))
    path = folder / "profile.toml"
    path.write_text(EXAMPLE_PROFILE.read_text("utf-8") + "\n" + recipe, encoding="utf-8")
    return load_profile(path)


@pytest.mark.parametrize("server_kind", ["ollama", "llama.cpp-without-json-mode"])
def test_the_local_llm_recipe_writes_the_digest_keyless(tmp_path, pipeline_vectors, server_kind):
    def route(body):
        if server_kind != "ollama" and "response_format" in body:
            return Reply(status=400, body=b'{"error": "response_format is not supported"}')
        return whole_run(body)

    with OpenAIServer(route) as server, open_store(tmp_path / "paperbrief.db") as store:
        pipeline_vectors.seed(store)
        profile = recipe_profile(tmp_path, server.url)
        assert not [w for w in warnings(profile, {}) if "401" in w]  # keyless is fine locally
        built = Services.build(
            profile, store, offline=False, environ={}, encoder=pipeline_vectors.encoder
        )
        assert built.llm is not None  # configured by the recipe alone, no key
        assert built.http is not None
        built.http.close()  # no arXiv here: the listing is a snapshot, no full text is read
        services = Services(embedder=built.embedder, llm=built.llm)
        options = RunOptions(listing_file=PIPELINE_LISTING, out_dir=tmp_path / "out")
        with services:
            result = run_day(store, profile, options, services, today=date(2026, 5, 23))
        usage = store.llm.usage()
    assert not result.fallbacks
    assert result.writer == "qwen2.5:14b-instruct"
    assert all("authorization" not in {k.lower() for k in h} for h in server.headers)
    assert {r["model"] for r in server.requests} == {"qwen2.5:14b-instruct"}
    assert server.max_in_flight == 1  # concurrency = 1
    if server_kind != "ollama":
        assert "response_format" not in server.requests[-1]
    assert sum(u.cost for u in usage) == 0 and sum(u.prompt_tokens for u in usage) > 0
