"""What one client spends: the day's budget, usage per role, and the record of every call.

The budget counts every call the store holds for the budget day plus what this client
spends, and reserves the prompt tokens of calls in flight, so parallel calls cannot
overshoot it together. A cache hit costs nothing now: it is recorded with zero tokens (the
budget is not charged twice) while ``RoleUsage.cached_*`` keeps what it once cost.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Protocol

from paperbrief.errors import BudgetExhausted
from paperbrief.profile import LLMSettings
from paperbrief.records import CachedAnswer, LLMCall, Spend


class CallRecords(Protocol):
    """Where calls are recorded and answers cached (the store's ``llm`` part)."""

    def record(self, call: LLMCall) -> None: ...

    def spend(self, day: str) -> Spend: ...

    def cached(self, key: str) -> CachedAnswer | None: ...

    def cache(self, key: str, answer: CachedAnswer) -> None: ...


@dataclass(frozen=True)
class Answer:
    """One answer's text and the tokens it cost."""

    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


NO_ANSWER = Answer("")


@dataclass
class RoleUsage:
    """What one role spent in a client's lifetime (cache hits count calls, not tokens)."""

    calls: int = 0
    cached: int = 0
    cached_prompt_tokens: int = 0  # what the cached answers cost when first asked
    cached_completion_tokens: int = 0
    cached_cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_ms: int = 0


@dataclass
class _Spent:
    tokens: int = 0
    cost: float = 0.0
    by_role: dict[str, RoleUsage] = field(default_factory=dict)


class Ledger:
    """The budget and the records of one client; thread-safe."""

    def __init__(
        self, settings: LLMSettings, records: CallRecords | None, day: str, run_id: int | None
    ) -> None:
        self.settings = settings
        self.records = records
        self.day = day
        self.run_id = run_id
        self._lock = threading.Lock()
        self._spent = _Spent()
        self._reserved = 0  # prompt tokens of calls in flight
        self._before = records.spend(day) if records is not None else Spend()

    def price(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        price = self.settings.prices.get(model, self.settings.default_price)
        return (prompt_tokens * price.input + completion_tokens * price.output) / 1_000_000

    def reserve(self, role: str, model: str, estimate: int) -> None:
        """Claim ``estimate`` prompt tokens of the day's budget, or raise ``BudgetExhausted``."""
        token_budget = self.settings.daily_token_budget
        cost_budget = self.settings.daily_cost_budget
        with self._lock:
            tokens = self._before.tokens + self._spent.tokens
            cost = self._before.cost + self._spent.cost
            pending = self._reserved + estimate
            over_tokens = token_budget and tokens + pending > token_budget
            over_cost = cost_budget and cost + self.price(model, pending, 0) > cost_budget
            if not (over_tokens or over_cost):
                self._reserved += estimate
                return
        self.record(role, model, None, NO_ANSWER, 0, "budget-exhausted")
        raise BudgetExhausted(
            f"the day's LLM budget is spent ({tokens} tokens, {cost:.4f} cost units;"
            f" limits {token_budget} tokens, {cost_budget} cost units)",
            "raise [llm] daily_token_budget / daily_cost_budget, or rerun tomorrow;"
            " finished calls are cached and will not be paid again",
        )

    def release(self, estimate: int) -> None:
        with self._lock:
            self._reserved -= estimate

    def record(
        self, role: str, model: str, key: str | None, answer: Answer, latency: int, outcome: str
    ) -> None:
        """Count a call (or cache hit) in memory and in the records."""
        cost = self.price(model, answer.prompt_tokens, answer.completion_tokens)
        with self._lock:
            use = self._spent.by_role.setdefault(role, RoleUsage())
            if outcome == "cached":
                use.cached += 1
                use.cached_prompt_tokens += answer.prompt_tokens
                use.cached_completion_tokens += answer.completion_tokens
                use.cached_cost += cost
                answer, cost = replace(answer, prompt_tokens=0, completion_tokens=0), 0.0
            elif outcome != "budget-exhausted":
                use.calls += 1
            self._spent.tokens += answer.prompt_tokens + answer.completion_tokens
            self._spent.cost += cost
            use.prompt_tokens += answer.prompt_tokens
            use.completion_tokens += answer.completion_tokens
            use.cost += cost
            use.latency_ms += latency
            if self.records is not None:
                self.records.record(
                    LLMCall(
                        role=role,
                        model=model,
                        prompt_tokens=answer.prompt_tokens,
                        completion_tokens=answer.completion_tokens,
                        cost=cost,
                        latency_ms=latency,
                        outcome=outcome,
                        cache_key=key,
                        day=self.day,
                        run_id=self.run_id,
                    )
                )

    def usage(self) -> dict[str, RoleUsage]:
        """Spend per role in this client's lifetime (a copy)."""
        with self._lock:
            return {role: replace(use) for role, use in self._spent.by_role.items()}
