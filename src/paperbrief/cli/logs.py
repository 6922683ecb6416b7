"""`paperbrief logs`: what the LLM calls did and cost, by day and role (simonw/llm's
`llm logs`, for a tool that spends money on a schedule)."""

from __future__ import annotations

import json
import sys
from datetime import date, timedelta

import click
from rich.console import Console
from rich.table import Table

from paperbrief.cli.common import console, get_store, say
from paperbrief.records import LLMCall, LLMUsage


@click.command("logs", short_help="LLM calls, tokens and cost by day and role.")
@click.option("--days", default=30, show_default=True, help="How many days back (from --until).")
@click.option("--since", metavar="YYYY-MM-DD", help="First budget day (overrides --days).")
@click.option("--until", metavar="YYYY-MM-DD", help="Last budget day (default: today).")
@click.option("--calls", "each_call", is_flag=True, help="List every call, not the sums.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (stable keys).")
def logs(days: int, since: str | None, until: str | None, each_call: bool, as_json: bool) -> None:
    """Every LLM call recorded in the store, summed per budget day, role and model: calls
    sent, failed, answered from the cache (free), refused by the budget; prompt and
    completion tokens; cost (from [llm] prices). The budget day is the digest's date.

    \b
      paperbrief logs                 the last 30 days, with a total
      paperbrief logs --since 2026-05-01 --until 2026-05-31
      paperbrief logs --calls --days 1   today's calls, one by one

    --json prints {"since", "until", "days": [{"day", "role", "model", "calls", "failed",
    "cached", "refused", "prompt_tokens", "completion_tokens", "cost"}], "total": {…}}, or
    with --calls {"calls": [{"created_at", "day", "role", "model", "outcome",
    "prompt_tokens", "completion_tokens", "cost", "latency_ms"}]}.
    """
    last = _day(until, "--until") if until else date.today()
    first = _day(since, "--since") if since else last - timedelta(days=max(days, 1) - 1)
    with get_store() as store:
        if each_call:
            calls = [
                c
                for c in store.llm.calls()
                if first.isoformat() <= (c.day or "") <= last.isoformat()
            ]
            _print_calls(calls, as_json)
            return
        usage = store.llm.usage(first.isoformat(), last.isoformat())
    total = _total(usage)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "since": first.isoformat(),
                    "until": last.isoformat(),
                    "days": [vars(u) for u in usage],
                    "total": total,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    if not usage:
        console.print(f"no LLM calls recorded from {first} to {last}", highlight=False)
        return
    table = Table("day", "role", "model", "calls", "failed", "cached", "budget", "prompt",
                  "completion", "cost", title=f"LLM calls {first} – {last}")  # fmt: skip
    for u in usage:
        table.add_row(u.day, say(u.role), say(u.model), *_counts(u), f"{u.cost:.4f}")
    table.add_section()
    table.add_row("total", "", "", *(f"{total[k]:,}" for k in _COUNTED), f"{total['cost']:.4f}")
    _output().print(table)


def _output() -> Console:
    """stdout; off a terminal wide enough that a table is never folded (a log, a pipe)."""
    return Console() if sys.stdout.isatty() else Console(width=200)


_COUNTED = ("calls", "failed", "cached", "refused", "prompt_tokens", "completion_tokens")


def _counts(usage: LLMUsage) -> list[str]:
    return [f"{getattr(usage, key):,}" for key in _COUNTED]


def _total(usage: list[LLMUsage]) -> dict[str, float]:
    total: dict[str, float] = {key: sum(getattr(u, key) for u in usage) for key in _COUNTED}
    total["cost"] = round(sum(u.cost for u in usage), 6)
    return total


def _print_calls(calls: list[LLMCall], as_json: bool) -> None:
    keys = ("created_at", "day", "role", "model", "outcome", "prompt_tokens",
            "completion_tokens", "cost", "latency_ms")  # fmt: skip
    if as_json:
        click.echo(json.dumps({"calls": [{k: getattr(c, k) for k in keys} for c in calls]},
                              ensure_ascii=False, indent=2))  # fmt: skip
        return
    if not calls:
        console.print("no LLM calls recorded in those days", highlight=False)
        return
    table = Table("time", "role", "model", "outcome", "prompt", "completion", "cost", "ms")
    for c in calls:
        table.add_row(say(c.created_at or ""), say(c.role), say(c.model), say(c.outcome),
                      f"{c.prompt_tokens:,}", f"{c.completion_tokens:,}", f"{c.cost:.4f}",
                      str(c.latency_ms))  # fmt: skip
    _output().print(table)


def _day(text: str, option: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a date (YYYY-MM-DD)", param_hint=option
        ) from None


COMMANDS = [logs]
