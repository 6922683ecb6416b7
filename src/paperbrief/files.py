"""Writing files safely: the one atomic write every output goes through.

The Markdown and HTML digest, the blog post, the Atom feed and the profile saved by the
web UI are replaced atomically: the new content goes to a uniquely named temporary file
in the same folder (created exclusively, so a planted file or symlink is never followed),
is flushed to disk, then renamed over the target. A reader sees the old file or the new
one, never half of one; a failed write (disk full) leaves the old file and no temporary.
A temporary left by a process that was killed (its name carries the writer's pid) is
removed by the next write of the same file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

from paperbrief.errors import OutputError


def write_atomic(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) atomically."""
    content = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a folder is in the way", str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_orphans(path)
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
        )
    except OSError as error:
        raise os_error(error, path) from error
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise os_error(error, path) from error


def _remove_orphans(path: Path) -> None:
    """Temporaries of ``path`` whose writer no longer runs (killed half way)."""
    for orphan in path.parent.glob(f".{path.name}.*.tmp"):
        pid_text = orphan.name[len(path.name) + 2 :].split(".", 1)[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            with contextlib.suppress(OSError):
                orphan.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def os_error(error: OSError, path: Path | None = None) -> OutputError:
    """One line and the fix for an OS error (disk full, permissions, a file in the way)."""
    where = path or (Path(error.filename) if error.filename else None)
    reason = error.strerror or str(error)
    subject = f"cannot write {where}" if where else "a file operation failed"
    folder = where.parent if where else Path(".")
    if error.errno == errno.ENOSPC:
        hint = "free some disk space and rerun; nothing was half-written"
    elif error.errno == errno.EROFS:
        hint = "the file system is read-only; choose another folder"
    elif isinstance(error, PermissionError):
        hint = f"make {folder} writable, or choose another folder in the profile"
    elif isinstance(error, NotADirectoryError | FileExistsError):
        hint = f"a file stands where a folder should be on the way to {where}; move it"
    elif isinstance(error, IsADirectoryError):
        hint = f"{where} is a folder; choose a file name"
    else:
        hint = f"check that {folder} is a folder you can write to"
    return OutputError(f"{subject}: {reason}", hint)
