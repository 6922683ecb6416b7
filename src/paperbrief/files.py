"""Writing files safely: the one atomic write every output goes through.

The Markdown and HTML digest, the blog post, the Atom feed and the profile saved by the
web UI are replaced atomically: the new content goes to a uniquely named temporary file
in the same folder (created exclusively, so a planted file or symlink is never followed),
is flushed to disk, then renamed over the target. A reader sees the old file or the new
one, never half of one; a failed write (disk full) leaves the old file and no temporary.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from paperbrief.errors import PaperbriefError


class OutputError(PaperbriefError):
    """A file could not be written (no space, no permission, a folder in the way)."""


def write_atomic(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) atomically."""
    content = data.encode("utf-8") if isinstance(data, str) else data
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise _failed(path, error) from error
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise _failed(path, error) from error


def _failed(path: Path, error: OSError) -> OutputError:
    reason = error.strerror or str(error)
    if error.errno == 28:  # ENOSPC
        hint = "free some disk space and rerun; nothing was half-written"
    elif isinstance(error, PermissionError):
        hint = f"make {path.parent} writable, or choose another folder in the profile"
    else:
        hint = f"check that {path.parent} is a folder you can write to"
    return OutputError(f"cannot write {path}: {reason}", hint)
