"""Caches: embedding vectors, parsed full texts, LLM answers, and the record of LLM calls."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date

import numpy as np

from paperbrief.models import Document
from paperbrief.records import CachedAnswer, LLMCall, LLMUsage, Spend
from paperbrief.store import codec
from paperbrief.store.database import Database, now

_CHUNK = 500


class Embeddings:
    """``store.embeddings``: vectors by model and text hash (``rank.EmbeddingCache``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, model: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Cached vectors for the given text hashes (missing ones are absent)."""
        hashes = list(text_hashes)
        found: dict[str, np.ndarray] = {}
        with self._db.read() as db:
            for start in range(0, len(hashes), _CHUNK):
                chunk = hashes[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for row in db.execute(
                    f"SELECT text_hash, vector FROM embeddings WHERE model=?"
                    f" AND text_hash IN ({marks})",
                    (model, *chunk),
                ).fetchall():
                    found[row["text_hash"]] = np.frombuffer(row["vector"], dtype=np.float32)
        return found

    def put(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        with self._db.write() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, text_hash, dim, vector)"
                " VALUES (?,?,?,?)",
                [
                    (model, key, int(vec.shape[0]), np.asarray(vec, np.float32).tobytes())
                    for key, vec in vectors.items()
                ],
            )


class Documents:
    """``store.documents``: each paper's parsed full text (``fulltext.DocumentCache``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def save(self, document: Document, version: int | None) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO documents (paper_id, version, source, body, attempts,"
                " fetched_at) VALUES (?,?,?,?,?,?)",
                (
                    document.arxiv_id,
                    version,
                    document.source,
                    codec.encode(document),
                    json.dumps(list(document.attempts), ensure_ascii=False),
                    now(),
                ),
            )

    def load(self, paper_id: str, version: int | None = None) -> Document | None:
        """The stored Document, or None; with ``version``, only a Document of that version
        (or one whose version was never known)."""
        with self._db.read() as db:
            row = db.execute(
                "SELECT version, body FROM documents WHERE paper_id=?", (paper_id,)
            ).fetchone()
        if row is None:
            return None
        if version is not None and row["version"] is not None and row["version"] != version:
            return None
        return codec.decode(Document, row["body"])


class LLMRecords:
    """``store.llm``: every LLM call and cache hit, the spend per budget day, the answer cache."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def record(self, call: LLMCall) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT INTO llm_calls (run_id, day, role, model, cache_key, prompt_tokens,"
                " completion_tokens, cost, latency_ms, outcome, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    call.run_id,
                    call.day,
                    call.role,
                    call.model,
                    call.cache_key,
                    call.prompt_tokens,
                    call.completion_tokens,
                    call.cost,
                    call.latency_ms,
                    call.outcome,
                    now(),
                ),
            )

    def calls(self, day: date | str | None = None) -> list[LLMCall]:
        """Recorded calls, oldest first (of one budget day when given)."""
        with self._db.read() as db:
            if day is None:
                rows = db.execute("SELECT * FROM llm_calls ORDER BY id").fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM llm_calls WHERE day=? ORDER BY id", (str(day),)
                ).fetchall()
        return [
            LLMCall(
                role=row["role"],
                model=row["model"],
                prompt_tokens=row["prompt_tokens"],
                completion_tokens=row["completion_tokens"],
                cost=row["cost"],
                latency_ms=row["latency_ms"],
                outcome=row["outcome"],
                cache_key=row["cache_key"],
                day=row["day"],
                run_id=row["run_id"],
                created_at=row["created_at"],
            )
            for row in rows
        ]

    def usage(self, since: str | None = None, until: str | None = None) -> list[LLMUsage]:
        """Calls, tokens and cost per budget day, role and model (days ``since`` to
        ``until``, ISO dates, both included), newest day first."""
        answered = "outcome LIKE 'ok%' OR outcome LIKE 'repair-ok%'"
        not_sent = "outcome IN ('cached', 'budget-exhausted')"
        with self._db.read() as db:
            rows = db.execute(
                "SELECT COALESCE(day, substr(created_at, 1, 10)) AS d, role, model,"
                f" SUM(NOT ({not_sent})),"
                f" SUM(NOT ({not_sent}) AND NOT ({answered}) AND outcome != 'json-mode-refused'),"
                " SUM(outcome = 'cached'), SUM(outcome = 'budget-exhausted'),"
                " SUM(prompt_tokens), SUM(completion_tokens), SUM(cost)"
                " FROM llm_calls WHERE (? IS NULL OR d >= ?) AND (? IS NULL OR d <= ?)"
                " GROUP BY d, role, model ORDER BY d DESC, role, model",
                (since, since, until, until),
            ).fetchall()
        return [
            LLMUsage(
                day=str(r[0]),
                role=r[1],
                model=r[2],
                calls=int(r[3] or 0),
                failed=int(r[4] or 0),
                cached=int(r[5] or 0),
                refused=int(r[6] or 0),
                prompt_tokens=int(r[7] or 0),
                completion_tokens=int(r[8] or 0),
                cost=float(r[9] or 0),
            )
            for r in rows
        ]

    def spend(self, day: date | str) -> Spend:
        """Tokens and cost the calls of one budget day have used."""
        with self._db.read() as db:
            row = db.execute(
                "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0),"
                " COALESCE(SUM(cost), 0.0) FROM llm_calls WHERE day=?",
                (str(day),),
            ).fetchone()
        return Spend(tokens=int(row[0]), cost=float(row[1]))

    def cached(self, key: str) -> CachedAnswer | None:
        with self._db.read() as db:
            row = db.execute("SELECT * FROM llm_cache WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        return CachedAnswer(
            row["model"], row["response"], row["prompt_tokens"], row["completion_tokens"]
        )

    def cache(self, key: str, answer: CachedAnswer) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO llm_cache (key, model, response, prompt_tokens,"
                " completion_tokens, created_at) VALUES (?,?,?,?,?,?)",
                (
                    key,
                    answer.model,
                    answer.response,
                    answer.prompt_tokens,
                    answer.completion_tokens,
                    now(),
                ),
            )
