"""Reading and writing files safely: the one bounded read every input goes through, and
the one atomic write every output goes through.

Every file paperbrief reads (a profile, a local paper, a digest to verify, a listing, the
embedding model, an import) is opened by ``open_regular``/``read_bounded``: it must be a
regular file (a symlink is followed to one), so a named pipe, a device (``/dev/zero``), a
socket or a folder is refused at once instead of hanging or filling memory, and it is read
up to a cap that the caller names.

The Markdown and HTML digest, the blog post, the Atom feed and the profile saved by the
web UI are replaced atomically: the new content goes to a uniquely named temporary file
in the same folder (created exclusively, so a planted file or symlink is never followed),
is flushed to disk, then renamed over the target. A reader sees the old file or the new
one, never half of one; a failed write (disk full) leaves the old file and no temporary.
A temporary left by a process that was killed (its name carries the writer's pid) is
removed by the next write of the same file.

Modes. A published file (digest, blog post, feed) is read by others — a web server, the
host user of a container volume — so it gets the mode of the file it replaces, or, when
new, what the user's umask allows (0644 under the usual 022), as ``open`` would give it.
A private file (``private=True``: anything holding secrets or the reader's data) is 0600
whatever it replaces, and :func:`private_folder` makes a folder of them 0700 when it
creates it. The store's files (``store/``) are private.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

from paperbrief.errors import InputFileError, OutputError

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def open_regular(path: Path, what: str = "file") -> BinaryIO:
    """``path`` opened for binary reading, after checking it is a regular file.

    Opened without blocking (a FIFO with no writer would otherwise hang the open itself),
    then checked with ``fstat`` on the open descriptor (no race with a swapped path).
    Raises ``InputFileError`` naming what the path is and how to fix it.
    """
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputFileError(f"{what} {path} does not exist", "check the path") from None
    except IsADirectoryError:
        raise InputFileError(f"{what} {path} is a folder", "pass a file") from None
    except OSError as error:
        raise InputFileError(
            f"cannot read {what} {path}: {error.strerror or error}",
            "check the file's permissions",
        ) from None
    mode = os.fstat(handle).st_mode
    if not stat.S_ISREG(mode):
        os.close(handle)
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise InputFileError(
            f"{what} {path} is {kind}, not a regular file",
            "pass a regular file (paperbrief never reads pipes, devices or sockets)",
        )
    os.set_blocking(handle, True)
    return os.fdopen(handle, "rb")


def read_bounded(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path`` (``open_regular``), refused when over
    ``limit`` bytes, which is never exceeded in memory however the file grows."""
    with open_regular(path, what) as stream:
        try:
            data = stream.read(limit + 1)
        except OSError as error:
            raise InputFileError(
                f"cannot read {what} {path}: {error.strerror or error}", "check the file"
            ) from None
    if len(data) > limit:
        raise InputFileError(
            f"{what} {path} is over {_size(limit)}: too large to be one",
            f"pass the {what} itself; paperbrief reads at most {_size(limit)} of it",
        )
    return data


def read_text_bounded(path: Path, limit: int, what: str = "file") -> str:
    """``read_bounded`` decoded as UTF-8 (a BOM is allowed); other bytes are an
    ``InputFileError`` that names the line and the byte, with the fix."""
    raw = read_bounded(path, limit, what)
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputFileError(
            f"{what} {path} is not UTF-8 text (line {line} has a byte {raw[error.start]:#04x})",
            "save it as UTF-8 (in most editors: File → Save with Encoding → UTF-8)",
        ) from None


def _size(count: int) -> str:
    return f"{count / 2**20:g} MiB" if count >= 2**20 else f"{count / 1000:g} KB"


PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def write_atomic(path: Path, data: str | bytes, *, private: bool = False) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) atomically.

    The new file keeps the replaced file's mode, or gets the umask's default when it is new;
    ``private`` makes it 0600 either way.
    """
    content = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a folder is in the way", str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_orphans(path)
        mode = PRIVATE_FILE if private else _published_mode(path)
        handle, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
        )
    except OSError as error:
        raise os_error(error, path) from error
    try:
        # mkstemp makes 0600 whatever the umask: set the mode before anyone can see the file
        os.fchmod(handle, mode)
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise os_error(error, path) from error


def private_folder(path: Path) -> Path:
    """Create ``path`` (and its parents) if missing, the folder itself 0700; an existing
    folder keeps its mode (its owner chose it, e.g. a volume shared with the host)."""
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=PRIVATE_FOLDER)
    return path


def make_private(path: Path) -> None:
    """Narrow an existing file of ours to 0600 (a store made by an older paperbrief was
    0644); files we do not own are left as they are."""
    with contextlib.suppress(OSError):
        status = path.stat()
        if status.st_uid == os.getuid() and status.st_mode & 0o077:
            os.chmod(path, PRIVATE_FILE)


def _published_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    """The process's umask, read without changing it (``os.umask`` can only be read by
    setting it, which would race with the writer threads)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # no /proc: read it the old way, restoring it at once
    os.umask(mask)
    return mask


def _remove_orphans(path: Path) -> None:
    """Temporaries of ``path`` whose writer no longer runs (killed half way)."""
    for orphan in path.parent.glob(f".{path.name}.*.tmp"):
        pid_text = orphan.name[len(path.name) + 2 :].split(".", 1)[0]
        if pid_text.isdigit() and not process_alive(int(pid_text)):
            with contextlib.suppress(OSError):
                orphan.unlink()


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (someone else's counts)."""
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
