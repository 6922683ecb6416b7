"""One base error with a few subclasses named by condition.

Every error carries a one-line message and a hint that says the fix; the CLI prints both
and exits with ``exit_code`` (1 unless noted). Exit codes compose with cron (see README,
"Exit codes"). The whole tree, with the modules that define their own (a test checks no
class is missing here)::

    PaperbriefError
    ├── ProfileError (2)          the profile is missing or invalid; .problems names each
    ├── SourceError (5)           a listing or a paper could not be fetched or parsed
    │   ├── FeedParseError        it arrived but cannot be parsed
    │   ├── http.HttpStatusError  a non-retryable error status (4xx but 429)
    │   ├── http.HostUnreachable  no attempt got an answer (DNS, refused, timeout)
    │   └── http.RunDeadlineReached   the run's deadline has passed
    ├── StoreError                the SQLite store is unusable        } errors.FATAL: no
    ├── OutputError               a file could not be written         } fallback helps
    ├── InputFileError (2)        a file to read is a pipe, a device, too large or unreadable
    ├── RunInProgress (9)         another run of the day holds the lock
    ├── FullTextError             no full text could be read
    ├── LLMError                  .reason: the fallback's one word ("error")
    │   ├── BudgetExhausted       budget
    │   ├── LLMUnreachable        unreachable
    │   ├── LLMTimeout            timeout
    │   ├── LLMInvalidAnswer      invalid
    │   ├── LLMRefused            refused
    │   └── LLMDeadline           deadline
    ├── DeliveryError             a channel certainly failed
    │   └── DeliveryUnknown       it may have been delivered: never resent unasked
    ├── ServeError (2)            the web UI refuses to start as asked
    ├── EmptyDay                  nothing to publish, because:
    │   ├── NoAnnouncement (4)    arXiv announced nothing
    │   ├── FetchFailed (5)       the listing could not be fetched
    │   └── NothingPassed (6)     no paper passed the profile's filters
    ├── library.formats.LibraryError       a library export cannot be read
    │   └── library.zotero.ZoteroError     a Zotero library cannot be read (key, network)
    ├── rank.embed.EmbeddingModelError     the bundled embedding model cannot be loaded
    ├── rank.evaluate.EvaluationError      its listings or picks are missing or malformed
    ├── rank.imported.PicksFileError       a picks file cannot be read
    ├── rank.judge.JudgeReplayError        a --judge-replay file cannot be read
    ├── cli.feedback.FeedbackError         an unusable id or signal
    └── cli.judging.NoVerdicts             no recorded verdicts to export
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNVERIFIED = 3  # `paperbrief verify` found unsupported numbers
EXIT_NO_ANNOUNCEMENT = 4  # weekend / holiday: arXiv announced nothing
EXIT_FETCH_FAILED = 5  # the listing could not be fetched
EXIT_NOTHING_PASSED = 6  # papers were listed but none passed the profile's filters
EXIT_DELIVERY_FAILED = 7  # the digest was written, but a delivery failed or is unknown
EXIT_FALLBACKS = 8  # the digest was published, but parts of it fell back (it says which)
EXIT_BUSY = 9  # another run of the same day and profile holds the lock: nothing was done
EXIT_INTERRUPTED = 130  # stopped by SIGINT (128 + 2), recorded `interrupted`
EXIT_TERMINATED = 143  # stopped by SIGTERM (128 + 15), recorded `interrupted`

# What each code means, said once: `paperbrief --help` and `run --help` print it, and
# tests/test_cli_help.py checks the README's table against it.
EXIT_MEANINGS: dict[int, str] = {
    EXIT_OK: "digest published (or already published)",
    EXIT_ERROR: "an error (the message says the fix); send: a channel was not sent",
    EXIT_USAGE: "bad usage or invalid profile",
    EXIT_UNVERIFIED: "verify: some numbers are not supported by the papers",
    EXIT_NO_ANNOUNCEMENT: "no announcement that day (weekend, holiday): nothing published",
    EXIT_FETCH_FAILED: "the listing could not be fetched: nothing published",
    EXIT_NOTHING_PASSED: "no paper passed the profile's filters: nothing published",
    EXIT_DELIVERY_FAILED: "written, but a delivery failed (retried) or is unknown",
    EXIT_FALLBACKS: "published, with fallbacks (the digest says which parts and why)",
    EXIT_BUSY: "another run of the same day and profile is in progress: nothing done",
    EXIT_INTERRUPTED: "stopped by Ctrl-C (SIGINT): recorded interrupted; the next run resumes",
    EXIT_TERMINATED: "stopped by SIGTERM: recorded interrupted; the next run resumes",
}


def exit_code_help() -> str:
    """The exit codes as a help epilog (click keeps the lines as they are after \\b)."""
    lines = [f"  {code}  {meaning}" for code, meaning in EXIT_MEANINGS.items()]
    return "\b\nExit codes (cron, systemd and CI can act on them):\n" + "\n".join(lines)


class PaperbriefError(Exception):
    """Base error: ``message`` says what went wrong, ``hint`` says the fix."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} (hint: {self.hint})" if self.hint else self.message


@dataclass(frozen=True)
class ProfileProblem:
    """One thing wrong with a profile: the dotted ``key`` (or ``TOML``), the ``fix``, and the
    1-based ``line`` of the profile text where it is, when known."""

    key: str
    fix: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.key}: {self.fix}"


class ProfileError(PaperbriefError):
    """The profile file is missing or invalid; ``problems`` lists each bad key and its fix."""

    exit_code = EXIT_USAGE

    def __init__(
        self, message: str, hint: str = "", problems: tuple[ProfileProblem, ...] = ()
    ) -> None:
        super().__init__(message, hint)
        self.problems = problems


class SourceError(PaperbriefError):
    """A listing or paper could not be fetched or parsed."""

    exit_code = EXIT_FETCH_FAILED


class FeedParseError(SourceError):
    """A feed or page arrived but is not parseable (truncated XML, error body…)."""


class StoreError(PaperbriefError):
    """The SQLite store is unusable (locked, corrupt, from a newer version)."""


class OutputError(PaperbriefError):
    """A file could not be written (no space, no permission, a folder in the way)."""


class InputFileError(PaperbriefError):
    """A file paperbrief was asked to read is not a regular file it can read within its cap
    (a named pipe, a device, a folder, too large, missing or unreadable)."""

    exit_code = EXIT_USAGE


# Errors no fallback can help with: the store or the output folder itself is broken, so a
# strategy that falls back on any other failure lets these through.
FATAL = (StoreError, OutputError)


class RunInProgress(PaperbriefError):
    """Another run (or send) of the same day and profile holds the run lock."""

    exit_code = EXIT_BUSY


class FullTextError(PaperbriefError):
    """No full text could be obtained or parsed for a paper."""


class LLMError(PaperbriefError):
    """The LLM endpoint failed, answered invalidly after repair, or the budget ran out.

    ``reason`` names the kind of failure in one word, for the digest's note on what fell
    back and why (``labels.Labels.fallback_reason``).
    """

    reason = "error"


class BudgetExhausted(LLMError):
    """The day's token or cost budget is spent; no further calls are made."""

    reason = "budget"


class LLMUnreachable(LLMError):
    """The endpoint cannot be reached (DNS failure, refused connection, no route, or no
    attempt connected); the client makes no further request for the rest of its life."""

    reason = "unreachable"


class LLMTimeout(LLMError):
    """Every attempt ran out of time (the whole-request limit ``[llm] timeout``)."""

    reason = "timeout"


class LLMInvalidAnswer(LLMError):
    """The answer could not be used: undecodable, too large, or invalid after the repair."""

    reason = "invalid"


class LLMRefused(LLMError):
    """The endpoint refused the request (HTTP 4xx: key, model name, context window)."""

    reason = "refused"


class LLMDeadline(LLMError):
    """The run's deadline has passed: no further LLM call is started."""

    reason = "deadline"


class DeliveryError(PaperbriefError):
    """A delivery channel failed (certainly not delivered); other channels are unaffected."""


class DeliveryUnknown(DeliveryError):
    """A send broke after the request may have reached the receiver (a timeout after the
    body went out): it may have been delivered, so it is never repeated unasked."""


class ServeError(PaperbriefError):
    """The web UI refuses to start as asked (e.g. a public host without an access token)."""

    exit_code = EXIT_USAGE


class EmptyDay(PaperbriefError):
    """A day with nothing to publish; the subclass says why and carries the exit code."""


class NoAnnouncement(EmptyDay):
    """arXiv announced nothing that day (weekend, holiday, or not out yet)."""

    exit_code = EXIT_NO_ANNOUNCEMENT


class FetchFailed(EmptyDay):
    """The day's listing could not be fetched (or is older than arXiv still shows)."""

    exit_code = EXIT_FETCH_FAILED


class NothingPassed(EmptyDay):
    """Papers were listed, but none passed the profile's filters."""

    exit_code = EXIT_NOTHING_PASSED
