"""Bad input never crashes (see tests/faults.md): every case is a one-line error with a
hint and its exit code, or a problem `profile check` names. Profiles, listing files, the
data home, the output folder, a full disk, and hostile text on the terminal."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import EXIT_USAGE, FeedParseError, ProfileError
from paperbrief.profile import parse_profile
from paperbrief.sources import load_snapshot
from paperbrief.sources.limits import MAX_ABSTRACT_CHARS
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE, FIXTURES, ROOT
from tests.support.faults import require_namespaces

LISTING = FIXTURES / "pipeline" / "2026-05-22.jsonl"
BASE = EXAMPLE_PROFILE.read_text(encoding="utf-8")
TITLE = 'title = "arXiv 每日速递 {date}"'
COVER = 'coverColor = "from-emerald-500 to-teal-600"'
EMAIL = "[delivery.email]\n"


def _problems(text: str) -> dict[str, str]:
    with pytest.raises(ProfileError) as caught:
        parse_profile(text)
    return {problem.key: problem.fix for problem in caught.value.problems}


@pytest.mark.parametrize(
    ("edit", "key", "says"),
    [
        (
            ('timezone = "Asia/Shanghai"', 'timezone = "Mars/Olympus"'),
            "timezone",
            "not a time zone of the tz database",
        ),
        (
            ('timezone = "Asia/Shanghai"', 'timezone = "../../../etc/passwd"'),
            "timezone",
            "not a time zone",
        ),
        (
            ('timezone = "Asia/Shanghai"', 'timezone = "Asia/Shangai"'),
            "timezone",
            "did you mean 'Asia/Shanghai'",
        ),
        (('"cs.SE", "cs.CL"', '"cs.se", "cs.CL"'), "categories", "write 'cs.SE'"),
        (('"cs.SE", "cs.CL"', '"cs.SEE", "cs.CL"'), "categories", "did you mean 'cs.SE'"),
        (
            ('secondary_categories = ["cs.PL"]', 'secondary_categories = ["cs.pl"]'),
            "secondary_categories",
            "write 'cs.PL'",
        ),
        (('name = "AI4SE PhD student"', 'name = "Your Name"'), "name", "put your own name"),
        (('"cs.SE" = 0.12', '"cs.SE" = inf'), "rank.category_prior.cs.SE", "finite"),
        (("weight = 1.3", "weight = nan"), "research_lines.0.weight", "finite"),
        ((TITLE, "title = 'Digest {day}'"), "output.title", "only {date} may be used"),
        (
            ('dir = "out"', "dir = 'out'\nfilename = '{0}'"),
            "output.filename",
            "only {date} may be used",
        ),
        (
            ('dir = "out"', "dir = 'out'\nfilename = '../{date}'"),
            "output.filename",
            "plain file name",
        ),
        ((TITLE, "title = '{date:>999999999}'"), "output.title", "only {date} may be used"),
        ((TITLE, "title = 'a {'"), "output.title", "not a valid template"),
        (
            ("[rank]\n", "[delivery.blog]\nfilename = 'x/{date}.md'\n[rank]\n"),
            "delivery.blog.filename",
            "plain file name",
        ),
        # issue 21: what goes into a header, a front matter or every reader's e-mail
        ((TITLE, 'title = "Digest {date}\\nBcc: x@evil.example"'), "output.title", "one line"),
        (
            (
                "[rank]\n",
                '[delivery.email]\nsubject = "{title}\\r\\nBcc: x@evil.example"\n[rank]\n',
            ),
            "delivery.email.subject",
            "one line",
        ),
        (
            (
                "[rank]\n",
                '[delivery.email]\nsender = "bot@example.org\\nBcc: x@evil.example"\n[rank]\n',
            ),
            "delivery.email.sender",
            "one line",
        ),
        (
            (
                'coverColor = "from-emerald-500 to-teal-600"',
                'date = "2026\\n---\\n<script>x()</script>"',
            ),
            "output.extra_front_matter",
            "written by the digest itself",
        ),
        (
            (
                'coverColor = "from-emerald-500 to-teal-600"',
                'coverColor = "a\\n---\\n<script>x()</script>"',
            ),
            "output.extra_front_matter",
            "one line",
        ),
        (
            (COVER, '"cover: x\\n" = "y"'),
            "output.extra_front_matter",
            "letters, digits",
        ),
        (
            ("[rank]\n", '[delivery]\nlink = "javascript:alert(1)//{date}"\n[rank]\n'),
            "delivery.link",
            "not an http(s) address",
        ),
        (
            ("[rank]\n", '[delivery]\nlink = "https://user:pw@blog.example/{date}"\n[rank]\n'),
            "delivery.link",
            "no user name, password",
        ),
        (
            ("[rank]\n", "[llm]\nmax_retries = 50\n[rank]\n"),
            "llm.max_retries",
            "less than or equal to 10",
        ),
        (
            ("[rank]\n", '[rank]\nembedding_model = "bge-small-en"\n'),
            "rank.embedding_model",
            "not a bundled embedding model",
        ),
    ],
    ids=[
        "tz-missing",
        "tz-path",
        "tz-typo",
        "category-case",
        "category-typo",
        "secondary-case",
        "template-name",
        "inf-prior",
        "nan-weight",
        "title-day",
        "filename-index",
        "filename-escape",
        "title-width",
        "title-brace",
        "blog-filename",
        "title-newline",
        "subject-newline",
        "sender-newline",
        "front-matter-date",
        "front-matter-value-newline",
        "front-matter-key",
        "link-scheme",
        "link-credentials",
        "retries-50",
        "embedding-model",
    ],
)
def test_a_bad_value_is_a_named_problem(edit, key, says):
    problems = _problems(BASE.replace(*edit))
    assert key in problems and says in problems[key], problems


def test_a_deeply_nested_toml_is_a_problem_not_a_recursion_error():
    with pytest.raises(ProfileError, match="nested far too deeply"):
        parse_profile("x = " + "[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (BASE.encode("utf-16"), "saved as UTF-16"),
        (BASE.encode("utf-8").replace(b"AI4SE", b"AI4S\xc9"), "not UTF-8 text (line 4"),
    ],
    ids=["utf-16", "latin-1"],
)
def test_a_profile_in_another_encoding_is_one_line_with_the_fix(tmp_path, content, says):
    path = tmp_path / "profile.toml"
    path.write_bytes(content)
    result = CliRunner().invoke(cli, ["profile", "check", "--profile", str(path)])
    assert result.exit_code == EXIT_USAGE and says in result.output
    assert "save it as UTF-8" in result.output and "Traceback" not in result.output


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "profile.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.encode("utf-8"))
    result = CliRunner().invoke(cli, ["profile", "check", "--profile", str(path)])
    assert result.exit_code == 0, result.output


def test_a_folder_as_paperbrief_profile_is_one_line(tmp_path):
    result = CliRunner().invoke(
        cli, ["profile", "check"], env={"PAPERBRIEF_PROFILE": str(tmp_path)}
    )
    assert result.exit_code == EXIT_USAGE and "is a folder, not a file" in result.output


def test_profile_check_reports_named_variables_and_a_base_url_without_a_key(tmp_path):
    path = tmp_path / "profile.toml"
    path.write_text(
        BASE
        + '\n[llm]\nbase_url = "https://api.deepseek.com/v1"\n'
        + '\n[[delivery.webhooks]]\nkind = "slack"\nurl_env = "SLACK_HOOK"\n',
        encoding="utf-8",
    )
    env = {"SLACK_HOOK": "https://hooks.example/x", "PAPERBRIEF_LLM_API_KEY": ""}
    result = CliRunner().invoke(cli, ["profile", "check", "--profile", str(path)], env=env)
    assert result.exit_code == 0, result.output
    assert "PAPERBRIEF_LLM_API_KEY: unset" in result.output
    assert "SLACK_HOOK: set" in result.output and "hooks.example" not in result.output
    assert "api.deepseek.com without a key" in result.output and "HTTP 401" in result.output


def test_a_50_mb_abstract_is_capped_in_bounded_memory(tmp_path):
    record = json.loads(LISTING.read_text(encoding="utf-8").splitlines()[0])
    record["abstract"] = "word " * 10_000_000
    path = tmp_path / "2026-05-22.jsonl"
    path.write_text(json.dumps(record), encoding="utf-8")
    tracemalloc.start()
    listing = load_snapshot(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(listing.papers[0].abstract) == MAX_ABSTRACT_CHARS
    assert peak < 400_000_000  # the file is 50 MB; the run once took 5.8 GB


def test_a_listing_gzip_that_inflates_to_a_gib_is_refused(tmp_path):
    path = tmp_path / "2026-05-22.jsonl.gz"
    member = gzip.compress(b" " * (16 * 1024 * 1024), compresslevel=9)
    path.write_bytes(member * 20)  # 320 MiB of spaces in about 300 KB (20 gzip members)
    with pytest.raises(FeedParseError, match="larger than 256 MiB once decompressed"):
        load_snapshot(path)


def test_a_corrupt_listing_gzip_is_one_line(tmp_path):
    path = tmp_path / "2026-05-22.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": "1"}\n')[:-6] + b"broken")
    with pytest.raises(FeedParseError, match="cannot read listing file"):
        load_snapshot(path)


def _run(args: list[str], env: dict[str, str]):
    return CliRunner().invoke(cli, ["run", "--listing", str(LISTING), "--offline", *args], env=env)


def test_a_corrupt_database_is_one_line_with_a_hint(tmp_path):
    home = tmp_path / "home"
    database = home / "paperbrief.db"
    with open_store(database) as store:
        store.listings.save(load_snapshot(LISTING))
    data = bytearray(database.read_bytes())
    for offset in range(4096, len(data), 4096):  # every page after the first: garbage
        data[offset + 8 : offset + 200] = b"\xa5" * 192
    database.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        Path(str(database) + suffix).unlink(missing_ok=True)
    result = _run(["--profile", str(EXAMPLE_PROFILE)], {"PAPERBRIEF_HOME": str(home)})
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "malformed" in result.output and "hint:" in result.output


def test_a_data_home_that_is_a_file_is_one_line(tmp_path):
    home = tmp_path / "home"
    home.write_text("not a folder")
    result = _run(["--profile", str(EXAMPLE_PROFILE)], {"PAPERBRIEF_HOME": str(home)})
    assert result.exit_code == 1 and "not a folder" in result.output


@pytest.mark.slow
def test_out_under_a_file_is_one_line(tmp_path, embedded_home):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = _run(
        ["--profile", str(EXAMPLE_PROFILE), "--out", str(blocker / "out")],
        {"PAPERBRIEF_HOME": str(embedded_home)},
    )
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "a file stands where a folder should be" in result.output


@pytest.mark.slow
def test_an_embedding_model_that_is_not_bundled_is_one_line(tmp_path, isolated_home):
    profile = tmp_path / "profile.toml"
    profile.write_text(
        BASE.replace("[rank]\n", '[rank]\nembedding_model = "other/model"\n'), "utf-8"
    )
    result = _run(["--profile", str(profile), "--out", str(tmp_path)], {})
    assert result.exit_code == EXIT_USAGE and "other/model" in result.output
    assert "not a bundled embedding model" in result.output
    # ... and `profile check` refuses it the same way, before any run
    checked = CliRunner().invoke(cli, ["profile", "check", "--profile", str(profile)])
    assert checked.exit_code == EXIT_USAGE and "rank.embedding_model" in checked.output


@pytest.mark.slow
def test_hostile_titles_print_no_terminal_escapes_in_run_and_rank(tmp_path, embedded_home):
    rows = [json.loads(line) for line in LISTING.read_text(encoding="utf-8").splitlines()]
    hostile = "\x1b]0;pwned\x07\x1b[2J\u202eCleared\x1b[31m red \x9b2J\u2066"
    for row in rows:
        row["title"] = row["title"] + " " + hostile
    listing = tmp_path / "2026-05-22.jsonl"
    listing.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    env = {"PAPERBRIEF_HOME": str(embedded_home)}
    profile = ["--profile", str(EXAMPLE_PROFILE)]
    ran = CliRunner().invoke(
        cli,
        ["run", "--listing", str(listing), *profile, "--offline", "--out", str(tmp_path / "out")],
        env=env,
    )
    ranked = CliRunner().invoke(cli, ["rank", "--listing", str(listing), *profile], env=env)
    # issue 21: search, and the JSON of rank (C1 controls and bidi overrides too)
    as_json = CliRunner().invoke(
        cli, ["rank", "--listing", str(listing), *profile, "--json"], env=env
    )
    searched = CliRunner().invoke(cli, ["search", "Cleared"], env=env)
    found_json = CliRunner().invoke(cli, ["search", "Cleared", "--json"], env=env)
    assert "Cleared" in ran.output  # the text stays, inert
    for result in (ran, ranked, as_json, searched, found_json):
        assert result.exit_code == 0, result.output
        assert "pwned" in result.output
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "\u202e" not in result.output and "\x9b" not in result.output
    # the JSON still carries the text exactly, as escapes a JSON reader decodes
    (first, *_) = json.loads(as_json.stdout)["ranking"]
    assert first["title"].endswith(hostile)
    assert json.loads(found_json.stdout)["papers"][0]["title"].endswith(hostile)


def test_disk_full_is_one_line_and_leaves_no_partial_file(tmp_path):
    require_namespaces()
    out = tmp_path / "small"
    out.mkdir()
    command = [sys.executable, "-m", "paperbrief", "profile", "init", str(out / "profile.toml")]
    # A 4 KB file system, nearly full: the 3 KB template does not fit.
    script = (
        f"mount -t tmpfs -o size=4k tmpfs {out} && head -c 3000 /dev/zero > {out}/fill"
        f' && {{ "$@"; code=$?; echo "left: $(ls -A {out})"; exit $code; }}'
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", *command],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PAPERBRIEF_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "No space left on device" in done.stderr and "free some disk space" in done.stderr
    assert done.stdout.strip() == "left: fill"  # no profile.toml, no temporary
