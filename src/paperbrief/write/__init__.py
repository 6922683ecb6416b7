"""write stage: per-paper briefs and the day's digest, checked against the papers.

* ``writers.py``: the strategies ``Services`` chooses from (``OfflineWriter``; ``LLMWriter``
  with the offline one as its fallback), the one deep-read pool, and their results
  (``Written``, ``Briefs``, ``Composed``);
* ``offline.py``: the offline (no-LLM) writer; ``extract.py``: what it reads from abstracts;
* ``llm_writer.py``: the grounded deep read (one call, or section notes first for a long
  paper) and the day's synthesis (prompts, answers with citations);
* ``verify.py``: every claim of a digest against the units it cites — ``claims.py`` reads
  a digest (structured or Markdown) into chunks, ``trace.py`` checks one claim (names,
  directions, comparisons, which numbers are claims), ``quantities.py`` matches its numbers;
  ``strict.py``: cutting untraced claims whole;
* ``notes.py``: the digest's honest remarks (full text used, what was traced, strict
  cuts, what fell back and why).
"""

from paperbrief.write.notes import say_fallbacks
from paperbrief.write.writers import (
    Briefs,
    Composed,
    LLMWriter,
    OfflineWriter,
    Writer,
    Written,
)

__all__ = [
    "Briefs",
    "Composed",
    "LLMWriter",
    "OfflineWriter",
    "Writer",
    "Written",
    "say_fallbacks",
]
