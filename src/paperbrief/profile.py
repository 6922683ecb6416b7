"""The profile: who the digest is for, and every knob of the pipeline.

One settings model. Every field has a default and a description; unknown keys are an error.
Secrets (API keys, SMTP passwords, webhook secrets) never live here: the profile names the
environment variable that holds them.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import tomllib
import zoneinfo
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticUndefined

from paperbrief.errors import InputFileError, ProfileError, ProfileProblem
from paperbrief.files import read_bounded
from paperbrief.profile_checks import (
    check_category,
    check_front_matter_key,
    check_link,
    check_single_line,
    check_template,
    time_zones,
)

HOME_ENV = "PAPERBRIEF_HOME"
# The digest's languages, one list: the profile's check, the CLI's --language choice, the
# prompts' language names and the label tables all read it (a test checks they agree).
Language = Literal["zh", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)


def home_dir() -> Path:
    """The data home (store, caches). ``$PAPERBRIEF_HOME`` or ``~/.paperbrief``."""
    return Path(os.environ.get(HOME_ENV) or Path.home() / ".paperbrief")


MAX_PROFILE_BYTES = 1_000_000  # a profile is a few KB; anything this big is not one
TEMPLATE_NAME = "Your Name"  # the template's placeholder, which must be replaced
# Marks categories a proposed profile guessed (library.profile_toml writes it; profile check warns).
GUESSED_MARK = "GUESSED by paperbrief"


class Strict(BaseModel):
    # TOML has inf and nan; no knob of paperbrief means anything with them.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


# A setting the web UI's profile editor may not change: where files go, which endpoints are
# contacted, the names of the variables holding secrets, who reads the digest and where its
# link points, what is published beyond the files, which models are paid for at what price.
# Through the editor one could otherwise point [llm] base_url elsewhere and api_key_env at
# the SMTP password, the feed at ~/.ssh/authorized_keys, every e-mail's link at a phishing
# page, or the day at a costlier model. Such a field says so itself (``protected_settings``).
PROTECTED: dict[str, Any] = {"protected": "locked"}
# A budget the editor may lower but not lift (nor turn into "no limit"): money and retries.
CEILING: dict[str, Any] = {"protected": "ceiling"}
# Which models [rank] embedding_model may name (``rank.embed.MODELS`` loads each; a test
# checks the two lists agree), so `profile check` refuses what `run` would.
EMBEDDING_MODELS = (
    "all-MiniLM-L6-v2@onnx-int8-t128",
    "all-MiniLM-L6-v2@onnx-int8-t256",
    "all-MiniLM-L6-v2",
)


def protected(default: Any = PydanticUndefined, **options: Any) -> Any:
    """A ``Field`` the web UI's editor keeps read-only (marked ``PROTECTED``)."""
    return Field(default, json_schema_extra=PROTECTED, **options)


def ceiling(default: Any = PydanticUndefined, **options: Any) -> Any:
    """A ``Field`` the web UI's editor may only lower (marked ``CEILING``; 0 = no limit is
    the highest value of all)."""
    return Field(default, json_schema_extra=CEILING, **options)


def _one_line(value: str) -> str:
    return check_single_line(value)


def _lines(values: list[str]) -> list[str]:
    return [check_single_line(value) for value in values]


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
    dir: str = protected("out", description="Folder for the Markdown and HTML files.")
    filename: str = protected("{date}", description="File stem; {date} is the digest date.")
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

    @field_validator("filename")
    @classmethod
    def _filename_renders(cls, value: str) -> str:
        return check_template(value, file_name=True)

    @field_validator("title")
    @classmethod
    def _title_renders(cls, value: str) -> str:
        return check_template(check_single_line(value))

    # The title, description, series and tags go into the post's front matter, the page's
    # <title>, every e-mail's subject and the feed: each one line.
    _single_lines = field_validator("description", "series")(_one_line)
    _tag_lines = field_validator("tags")(_lines)

    @field_validator("extra_front_matter")
    @classmethod
    def _front_matter_is_data(
        cls, value: dict[str, str | int | float | bool | list[str]]
    ) -> dict[str, str | int | float | bool | list[str]]:
        for key, item in value.items():
            check_front_matter_key(key, FRONT_MATTER_KEYS)
            for text in item if isinstance(item, list) else [item]:
                if isinstance(text, str):
                    check_single_line(text)
        return value


# The front-matter keys the digest writes from its own settings (``render.front_matter``).
FRONT_MATTER_KEYS = frozenset({"title", "date", "description", "tags", "series"})


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
        "all-MiniLM-L6-v2@onnx-int8-t128",
        description="Embedding model: all-MiniLM-L6-v2@onnx-int8-t128 (bundled, int8 ONNX,"
        " 128 tokens), all-MiniLM-L6-v2@onnx-int8-t256 (the same, 256 tokens: ranks a little"
        " better with feedback, ~2x slower cold) or all-MiniLM-L6-v2 (the same model on torch;"
        " needs the paperbrief[minilm] extra).",
    )

    @field_validator("embedding_model")
    @classmethod
    def _embedding_model_is_bundled(cls, value: str) -> str:
        if value not in EMBEDDING_MODELS:
            names = ", ".join(repr(name) for name in EMBEDDING_MODELS)
            raise ValueError(f"{value[:80]!r} is not a bundled embedding model; use one of {names}")
        return value

    judge_prompt_tokens: int = Field(
        300_000,
        ge=0,
        description="Prompt tokens the LLM judge may spend on a day: the first screen plus"
        " the papers it reads in full (about 2.3k each, most of it a prefix providers cache);"
        " the head is as many full readings as fit after the screen.",
    )
    screen_top_k: int = Field(
        300,
        ge=0,
        description="Papers of the cheap ranking the judge screens first from title and gist"
        " (0 = none: only the cheap top judge_always are read).",
    )
    screen_batch_size: int = Field(25, ge=1, le=60, description="Papers per first-screen request.")
    judge_always: int = Field(
        20,
        ge=0,
        description="The cheap ranking's top papers the judge always reads in full, whatever"
        " the screen said.",
    )
    judge_top_k: int = Field(
        300,
        ge=0,
        description="A ceiling on the papers the judge reads in full on a day (the cheap top"
        " judge_always, then the best of the first screen); below it, judge_prompt_tokens"
        " decides; 0 = no ceiling.",
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

    base_url: str = protected(
        "",
        description="Endpoint base URL, e.g. https://api.deepseek.com/v1; empty ="
        " $PAPERBRIEF_LLM_BASE_URL, else https://api.openai.com/v1 when a key is set.",
    )
    model: str = protected(
        "", description="Default model; empty = $PAPERBRIEF_LLM_MODEL or gpt-4o-mini."
    )
    judge_model: str = protected("", description="Model for the ranking judge; empty = model.")
    writer_model: str = protected("", description="Model for the deep read; empty = model.")
    api_key_env: str = protected(
        "PAPERBRIEF_LLM_API_KEY",
        description="Environment variable holding the key (OPENAI_API_KEY is the fallback).",
    )
    json_mode: bool = Field(
        True, description="Send response_format=json_object (turn off if the endpoint rejects it)."
    )
    temperature: float = Field(0.3, ge=0, le=2, description="Sampling temperature.")
    timeout: float = Field(
        180.0,
        gt=0,
        le=3600,
        description="Seconds one request may take in all (however slowly it arrives).",
    )
    max_answer_bytes: int = Field(
        4_000_000, ge=10_000, description="Largest answer accepted, in (decompressed) bytes."
    )
    max_retries: int = ceiling(
        3, ge=0, le=10, description="Retries on 429/5xx/timeouts/blank answers."
    )
    backoff_base: float = Field(
        2.0, ge=0, le=60, description="First backoff wait (s); doubles per retry."
    )
    max_retry_after: float = Field(
        120.0, ge=0, le=600, description="Cap on a server's Retry-After (s)."
    )
    concurrency: int = Field(4, ge=1, le=32, description="Requests in flight at once.")
    writer_max_tokens: int = Field(
        6000, ge=256, le=100_000, description="Completion cap of one deep read."
    )
    paper_text_tokens: int = Field(
        20000,
        ge=500,
        le=200_000,
        description="Paper text (tokens) one deep read is sent: the whole main body of a"
        " typical paper; a longer paper is read in two passes (section notes, then the read).",
    )
    reading_chunk_tokens: int = Field(
        14000,
        ge=500,
        le=200_000,
        description="Largest part of a long paper read into section notes in one call.",
    )
    strict_numbers: bool = Field(
        False,
        description="Cut every claim the verifier cannot trace to the units it cites"
        " (default: keep them, marked ⚠; the footer counts them).",
    )
    daily_token_budget: int = ceiling(
        600_000,
        ge=0,
        le=100_000_000,
        description="Prompt+completion tokens one day may spend (0 = no limit): room for the"
        " judge's [rank] judge_prompt_tokens (300k) and the writing (~150k prompt, ~40k"
        " completion), with retries.",
    )
    daily_cost_budget: float = ceiling(
        2.0,
        ge=0,
        le=10_000,
        description="Money one day may spend, in price-table units (0 = no limit).",
    )
    prices: dict[str, ModelPrice] = protected(
        default_factory=lambda: {
            "gpt-4o-mini": ModelPrice(input=0.15, output=0.6),
            "gpt-4o": ModelPrice(input=2.5, output=10.0),
            "deepseek-chat": ModelPrice(input=0.27, output=1.1),
        },
        description="Price per million tokens by model name.",
    )
    default_price: ModelPrice = protected(
        default_factory=lambda: ModelPrice(input=0.5, output=1.5),
        description="Price used for models missing from the price table.",
    )


class BlogSettings(Strict):
    folder: str = protected(
        "",
        description="Blog content folder the Markdown post is copied into; empty = off.",
    )
    filename: str = protected("{date}.md", description="Post file name; {date} is the digest date.")
    git_commit: bool = protected(
        False, description="Commit the post with git (the folder must be in a git work tree)."
    )
    commit_message: str = protected(
        "arXiv digest {date}", description="Commit message; {date} is the digest date."
    )

    @field_validator("filename")
    @classmethod
    def _filename_renders(cls, value: str) -> str:
        return check_template(value, file_name=True)

    @field_validator("commit_message")
    @classmethod
    def _message_renders(cls, value: str) -> str:
        return check_template(check_single_line(value))


class EmailSettings(Strict):
    smtp_host: str = protected("", description="SMTP server host; empty = e-mail off.")
    smtp_port: int = protected(
        587,
        ge=1,
        le=65535,
        description="SMTP port (587 STARTTLS, 465 SSL).",
    )
    security: Literal["starttls", "ssl", "none"] = protected(
        "starttls",
        description="starttls | ssl (implicit TLS) | none (local relay only).",
    )
    username: str = protected("", description="SMTP login; empty = no login.")
    password_env: str = protected(
        "PAPERBRIEF_SMTP_PASSWORD",
        description="Environment variable holding the SMTP password.",
    )
    sender: str = protected("", description="From address, e.g. 'paperbrief <me@example.org>'.")
    to: list[str] = protected(default_factory=list, description="Recipient addresses.")
    subject: str = Field("{title}", description="Subject; {title} and {date} are replaced.")
    ca_file: str = protected("", description="Extra CA bundle to trust (self-hosted server).")
    timeout: float = Field(30.0, gt=0, description="Seconds for connecting and sending.")

    # Each of these becomes a header line: a line break would fail the send or add a
    # header of the writer's choosing.
    _header_lines = field_validator("subject", "username", "sender")(_one_line)
    _recipient_lines = field_validator("to")(_lines)


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
    path: str = protected("", description="Where to write the Atom feed; empty = off.")
    size: int = Field(20, ge=1, le=500, description="How many recent digests the feed lists.")


class DeliverySettings(Strict):
    """Where a digest goes after it is written to disk. Secrets come from the environment."""

    link: str = protected(
        "",
        description="Public URL of a digest, {date} replaced (e.g. https://blog.example/{date}/);"
        " used by e-mail, webhooks and the feed.",
    )
    blog: BlogSettings = Field(default_factory=BlogSettings)
    email: EmailSettings = Field(default_factory=EmailSettings)
    webhooks: list[WebhookSettings] = protected(default_factory=list, description="Chat webhooks.")
    feed: FeedSettings = Field(default_factory=FeedSettings)

    @field_validator("link")
    @classmethod
    def _link_is_an_address(cls, value: str) -> str:
        return check_link(value)

    @field_validator("webhooks")
    @classmethod
    def _channels_unique(cls, value: list[WebhookSettings]) -> list[WebhookSettings]:
        names = [hook.channel for hook in value]
        reserved = {kind.kind for kind in CHANNEL_KINDS if kind.kind != "webhook"}
        if len(set(names)) != len(names) or reserved & set(names):
            raise ValueError(f"give each webhook a unique name (not {', '.join(sorted(reserved))})")
        for hook in value:
            if not (hook.url or hook.url_env):
                raise ValueError(f"webhook {hook.channel}: set url_env (or url)")
        return value


@dataclass(frozen=True)
class Secret:
    """An environment variable a channel reads for a secret, and whether it must be set."""

    variable: str
    purpose: str
    needed: bool = True


def _one(name: str, on: bool) -> list[str]:
    return [name] if on else []


def _email_secrets(delivery: DeliverySettings) -> list[Secret]:
    mail = delivery.email
    if not (mail.smtp_host and mail.username):
        return []
    return [Secret(mail.password_env, f"SMTP password for {mail.username}")]


def _webhook_secrets(delivery: DeliverySettings) -> list[Secret]:
    found = []
    for hook in delivery.webhooks:
        if hook.url_env:
            found.append(Secret(hook.url_env, f"{hook.channel} webhook URL", not hook.url))
        if hook.secret_env:
            found.append(Secret(hook.secret_env, f"{hook.channel} webhook signing secret"))
    return found


@dataclass(frozen=True)
class ChannelKind:
    """One way a digest goes out: a row of ``CHANNEL_KINDS``, the one table of channels.

    ``deliver.dispatch`` sends a configured channel with the sender of its ``kind`` (and
    retries a stale intent only where ``idempotent``), ``environment`` lists its secrets,
    and the web UI's profile editor keeps its protected settings read-only.
    """

    kind: Literal["blog", "feed", "email", "webhook"]
    settings: str  # its table in the profile, e.g. "delivery.email"
    idempotent: bool  # a file: writing it again changes nothing
    names: Callable[[DeliverySettings], list[str]]  # its configured channels ([]: off)
    secrets: Callable[[DeliverySettings], list[Secret]] = lambda delivery: []

    @property
    def protected(self) -> tuple[str, ...]:
        """Its settings the web UI may not change (declared on the fields themselves)."""
        keys = protected_settings()
        return tuple(k for k in keys if k == self.settings or k.startswith(self.settings + "."))


# In delivery order: the files first, then e-mail, then the webhooks.
CHANNEL_KINDS: tuple[ChannelKind, ...] = (
    ChannelKind("blog", "delivery.blog", True, lambda d: _one("blog", bool(d.blog.folder))),
    ChannelKind("feed", "delivery.feed", True, lambda d: _one("feed", bool(d.feed.path))),
    ChannelKind(
        "email",
        "delivery.email",
        False,
        lambda d: _one("email", bool(d.email.smtp_host)),
        _email_secrets,
    ),
    ChannelKind(
        "webhook",
        "delivery.webhooks",
        False,
        lambda d: [h.channel for h in d.webhooks],
        _webhook_secrets,
    ),
)


def channels_of(delivery: DeliverySettings) -> list[tuple[ChannelKind, str]]:
    """Every configured channel with its kind, in delivery order."""
    return [(kind, name) for kind in CHANNEL_KINDS for name in kind.names(delivery)]


class RunSettings(Strict):
    """The daily job as a whole."""

    deadline_minutes: float = Field(
        30.0,
        gt=0,
        le=24 * 60,
        description="A run publishes within this many minutes: network work (full text, LLM"
        " calls) stops in time for what is not done to fall back to the offline writer.",
    )


class Profile(Strict):
    """A researcher's profile. See `paperbrief profile init` for a commented template."""

    # The store keys this reader's digests, feedback and deliveries by it: renamed in the
    # editor, today's digest would go out again as if to a new reader.
    name: str = protected(description="Who the digest is for.")
    language: Language = Field("zh", description="Digest language.")
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
    timezone: str = Field(
        "Asia/Shanghai", description="Where the reader reads the digest (a tz database name)."
    )
    output: OutputSettings = Field(default_factory=OutputSettings)
    rank: RankSettings = Field(default_factory=RankSettings)
    delivery: DeliverySettings = Field(default_factory=DeliverySettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    run: RunSettings = Field(default_factory=RunSettings)

    @field_validator("name")
    @classmethod
    def _name_is_set(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("say who the digest is for")
        if value.strip() == TEMPLATE_NAME:
            raise ValueError(f"still the template's {TEMPLATE_NAME!r}: put your own name")
        return check_single_line(value)

    @field_validator("categories")
    @classmethod
    def _categories_not_empty(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("list at least one arXiv category, e.g. ['cs.SE']")
        return [check_category(category) for category in value]

    @field_validator("secondary_categories")
    @classmethod
    def _secondary_are_categories(cls, value: list[str]) -> list[str]:
        return [check_category(category) for category in value]

    @field_validator("timezone")
    @classmethod
    def _timezone_exists(cls, value: str) -> str:
        if value in time_zones():
            try:
                zoneinfo.ZoneInfo(value)
                return value
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                pass
        close = difflib.get_close_matches(value, sorted(time_zones()), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ", e.g. 'Asia/Shanghai'"
        raise ValueError(f"{value[:80]!r} is not a time zone of the tz database{hint}")

    @property
    def key(self) -> str:
        """What the store keys this reader's digests, picks and deliveries by: the name.

        Several profiles share one data home safely when their names differ.
        """
        return self.name.strip()

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


def protected_settings(model: type[BaseModel] | None = None, prefix: str = "") -> dict[str, Any]:
    """Every setting marked ``PROTECTED`` or ``CEILING`` on its field, by dotted key, with its
    default as plain data (None when it has none), in the order the profile declares them
    (``output.dir``, ``llm.base_url`` …)."""
    found: dict[str, Any] = {}
    for name, field in (model or Profile).model_fields.items():
        key = f"{prefix}{name}"
        if isinstance(field.json_schema_extra, dict) and field.json_schema_extra.get("protected"):
            default = field.get_default(call_default_factory=True)
            found[key] = None if default is PydanticUndefined else _plain(default)
        elif isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            found.update(protected_settings(field.annotation, key + "."))
    return found


def ceiling_settings(model: type[BaseModel] | None = None, prefix: str = "") -> frozenset[str]:
    """The protected settings the editor may lower but not lift (marked ``CEILING``)."""
    found: set[str] = set()
    for name, field in (model or Profile).model_fields.items():
        key = f"{prefix}{name}"
        if isinstance(field.json_schema_extra, dict):
            if field.json_schema_extra.get("protected") == CEILING["protected"]:
                found.add(key)
        elif isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            found |= ceiling_settings(field.annotation, key + ".")
    return frozenset(found)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


_TOML_LINE = re.compile(r"line (\d+)")


def line_of(key: str, text: str) -> int | None:
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
        message = message.removeprefix("Value error, ")
        fix = message[0].lower() + message[1:] if message else "fix the value"
    return ProfileProblem(key, fix, line_of(key, text))


def parse_profile(text: str, origin: str = "<profile>") -> Profile:
    """Parse and validate TOML text. Raises ProfileError whose ``problems`` name every bad
    key, its fix and its line."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        problem = ProfileProblem("TOML", "nested far too deeply to be a profile", None)
        raise ProfileError(
            f"{origin} is nested far too deeply to be a profile",
            "a profile is a handful of flat tables; check the file",
            problems=(problem,),
        ) from None
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


def read_profile_text(path: Path) -> str:
    """The profile file's text; every way a file can be unreadable is a ProfileError."""
    if path.is_dir():
        raise ProfileError(
            f"profile {path} is a folder, not a file",
            "pass the TOML file itself (--profile or $PAPERBRIEF_PROFILE)",
        )
    if not path.exists():
        raise ProfileError(
            f"profile {path} does not exist",
            "create one with `paperbrief profile init > profile.toml`, or pass --profile",
        )
    try:
        # A regular file only: a named pipe given as the profile once hung every command.
        raw = read_bounded(path, MAX_PROFILE_BYTES, "profile")
    except InputFileError as error:
        raise ProfileError(error.message, "point --profile at your profile TOML") from None
    return decode_profile(raw, str(path))


def decode_profile(raw: bytes, origin: str) -> str:
    """Profile bytes as text: UTF-8 (a BOM is allowed); anything else says how to fix it."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ProfileError(
            f"{origin} is saved as UTF-16",
            "save it as UTF-8 (in most editors: File → Save with Encoding → UTF-8)",
        )
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ProfileError(
            f"{origin} is not UTF-8 text (line {line} has a byte {raw[error.start]:#04x})",
            "save it as UTF-8 (in most editors: File → Save with Encoding → UTF-8)",
            problems=(ProfileProblem("TOML", "the file is not UTF-8", line),),
        ) from None


def load_profile(path: Path) -> Profile:
    """Read and validate a profile file."""
    return parse_profile(read_profile_text(path), origin=str(path))


def profile_template() -> str:
    """The commented template printed by `paperbrief profile init`."""
    return (resources.files("paperbrief") / "data" / "profile-template.toml").read_text(
        encoding="utf-8"
    )
