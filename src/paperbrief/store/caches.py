"""Caches: embedding vectors, parsed full texts, papers' readings, LLM answers, and the record
of LLM calls."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING

from paperbrief.models import Document, PaperReading
from paperbrief.records import CachedAnswer, LLMCall, LLMUsage, Spend
from paperbrief.store import codec
from paperbrief.store.database import Database, now

if TYPE_CHECKING:
    import numpy as np

_CHUNK = 500


class Embeddings:
    """``store.embeddings``: vectors by model and text hash (``rank.EmbeddingCache``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, model: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Cached vectors for the given text hashes (missing ones are absent)."""
        import numpy as np  # here: opening the store (every command does) needs no numpy

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
        import numpy as np

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


class Readings:
    """``store.readings``: each paper's reader-independent reading (``PaperReading``), one per
    paper version, writer model and language. ``basis`` names what it was written from (a
    hash of the prompt): a reading written from another text or prompt is not returned."""

    def __init__(self, db: Database, reader: str | None = None) -> None:
        self._db = db
        self._reader = reader

    def load(
        self, paper_id: str, version: int | None, model: str, language: str, basis: str
    ) -> PaperReading | None:
        with self._db.read() as db:
            row = db.execute(
                "SELECT basis, body FROM paper_readings WHERE paper_id=? AND version=?"
                " AND model=? AND language=?",
                (paper_id, version or 0, model, language),
            ).fetchone()
        if row is None or row["basis"] != basis:
            return None
        return codec.decode(PaperReading, row["body"])

    def save(
        self, reading: PaperReading, version: int | None, model: str, language: str, basis: str
    ) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO paper_readings (paper_id, version, model, language,"
                " basis, body, reader, created_at) VALUES (?,?,?,?,?,?,?,?)",
                (reading.paper_id, version or 0, model, language, basis,
                 codec.encode(reading), self._reader or "", now()),
            )  # fmt: skip

    def count(self) -> int:
        with self._db.read() as db:
            return int(db.execute("SELECT COUNT(*) FROM paper_readings").fetchone()[0])


class LLMRecords:
    """``store.llm``: every LLM call and cache hit, the spend per budget day, the answer cache.

    A reader's view (``reader``) records its calls under the reader's key and counts only
    them in ``calls`` and ``spend`` (each reader has their own budget); the answer cache is
    the home's, shared by every reader.
    """

    def __init__(self, db: Database, reader: str | None = None) -> None:
        self._db = db
        self._reader = reader

    def record(self, call: LLMCall) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT INTO llm_calls (run_id, day, role, model, cache_key, prompt_tokens,"
                " completion_tokens, cost, latency_ms, outcome, created_at, profile)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
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
                    self._reader or "",
                ),
            )

    def calls(self, day: date | str | None = None) -> list[LLMCall]:
        """Recorded calls, oldest first (of one budget day when given)."""
        clauses, parameters = self._scope()
        if day is not None:
            clauses, parameters = ["day=?", *clauses], (str(day), *parameters)
        where = " WHERE " + " AND ".join(clauses) if clauses else ""
        with self._db.read() as db:
            rows = db.execute(f"SELECT * FROM llm_calls{where} ORDER BY id", parameters).fetchall()
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
                " AND (? IS NULL OR profile = ?)"
                " GROUP BY d, role, model ORDER BY d DESC, role, model",
                (since, since, until, until, self._reader, self._reader),
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
        clauses, parameters = self._scope()
        with self._db.read() as db:
            row = db.execute(
                "SELECT COALESCE(SUM(prompt_tokens + completion_tokens), 0),"
                " COALESCE(SUM(cost), 0.0) FROM llm_calls WHERE "
                + " AND ".join(["day=?", *clauses]),
                (str(day), *parameters),
            ).fetchone()
        return Spend(tokens=int(row[0]), cost=float(row[1]))

    def _scope(self) -> tuple[list[str], tuple[str, ...]]:
        if self._reader is None:
            return [], ()
        return ["profile=?"], (self._reader,)

    def spend_by_reader(self, day: date | str) -> dict[str, Spend]:
        """Each reader's spend on one budget day ('' = calls made for no named reader)."""
        with self._db.read() as db:
            rows = db.execute(
                "SELECT profile, COALESCE(SUM(prompt_tokens + completion_tokens), 0),"
                " COALESCE(SUM(cost), 0.0) FROM llm_calls WHERE day=? GROUP BY profile",
                (str(day),),
            ).fetchall()
        return {row[0]: Spend(tokens=int(row[1]), cost=float(row[2])) for row in rows}

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
