"""Characters that steer a terminal or reorder text, and their removal: the one class.

C0 controls but tab and newline, DEL, C1 controls (``\\x9b`` is a one-byte CSI), and the
bidirectional marks, embeddings, overrides and isolates that can make a title read
backwards. Paper text and model answers are untrusted: the CLI strips these before a line
reaches the terminal (``cli.common.terminal_text``), its JSON writes them as escapes, and
the renderers remove them from everything a digest shows (``render.readable_digest``).
"""

from __future__ import annotations

import re

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def without_controls(text: str) -> str:
    """``text`` with every character of ``CONTROL`` removed (tab and newline stay)."""
    return CONTROL.sub("", text)
