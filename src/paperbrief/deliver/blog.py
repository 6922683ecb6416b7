"""Blog: copy the Markdown post (with its front matter) into the blog's content folder.

Optionally commit it with git, so a static-site host that builds from the repository picks
it up. Only the post's own path is staged and committed; nothing else in the blog's work
tree is touched.
"""

from __future__ import annotations

import subprocess
from datetime import date
from pathlib import Path

from paperbrief.errors import DeliveryError, OutputError
from paperbrief.files import write_atomic


def write_blog_post(
    folder: Path,
    filename: str,
    markdown: str,
    digest_date: date,
    *,
    git_commit: bool = False,
    commit_message: str = "arXiv digest {date}",
) -> str:
    """Write ``markdown`` to ``folder/filename`` ({date} replaced); return what was done.

    The file is replaced atomically. With ``git_commit`` the post is committed in the
    repository that contains ``folder`` (no commit when the content is unchanged).
    Raises DeliveryError when the folder is missing or git fails.
    """
    if not folder.is_dir():
        raise DeliveryError(
            f"blog folder {folder} does not exist",
            "create it or fix delivery.blog.folder in the profile",
        )
    name = filename.replace("{date}", digest_date.isoformat())
    target = folder / name
    if target.resolve().parent != folder.resolve():
        raise DeliveryError(
            f"blog filename {filename!r} leaves the blog folder",
            "use a plain file name such as '{date}.md'",
        )
    try:
        write_atomic(target, markdown)
    except OutputError as error:
        raise DeliveryError(error.message, error.hint) from error
    if not git_commit:
        return f"wrote {target}"
    message = commit_message.replace("{date}", digest_date.isoformat())
    _git(folder, "add", "--", name)
    staged = subprocess.run(
        ["git", "diff", "--cached", "--quiet", "--", name],
        cwd=folder,
        capture_output=True,
        check=False,
    )
    if staged.returncode == 0:
        return f"wrote {target} (unchanged in git)"
    _git(folder, "commit", "-q", "-m", message, "--", name)
    return f"wrote and committed {target}"


def _git(folder: Path, *args: str) -> None:
    try:
        subprocess.run(
            ["git", *args], cwd=folder, capture_output=True, text=True, check=True, timeout=60
        )
    except FileNotFoundError as error:
        raise DeliveryError(
            "git is not installed", "install git or set git_commit = false"
        ) from error
    except subprocess.CalledProcessError as error:
        raise DeliveryError(
            f"git {args[0]} failed in {folder}: {error.stderr.strip() or error.stdout.strip()}",
            "check the folder is inside a git work tree with user.name/user.email set",
        ) from error
