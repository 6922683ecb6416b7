"""write stage: per-paper briefs and the day's digest, checked against the papers.

* ``writers.py``: the strategies ``Services`` chooses from (``OfflineWriter``; ``LLMWriter``
  with the offline one as its fallback), the one deep-read pool, and their results
  (``Written``, ``Briefs``, ``Composed``);
* ``offline.py``: the offline (no-LLM) writer; ``extract.py``: what it reads from abstracts;
* ``llm_writer.py``: the grounded deep read and the day's synthesis (prompts, answers);
* ``verify.py``, ``claims.py``: every number of a digest against the papers;
  ``strict.py``: cutting what the papers do not support;
* ``notes.py``: the digest's honest remarks (full text used, unverified numbers, strict
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
