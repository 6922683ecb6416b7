"""What never reaches a log: secrets and the readers' e-mail addresses.

Logs are read by more people than the profile is: a public GitHub Actions log, a shared
journald, a pasted bug report. Every line the CLI writes to stderr goes through
:meth:`Redaction.apply` (``LogConsole.print``), which

* replaces the value of every secret the profile names (the LLM key, the SMTP password,
  webhook URLs, signing secrets; ``environment.secret_values``) with ``<$VARIABLE>``,
  wherever it appears — a webhook URL in ``-v``'s request lines included;
* masks a URL's password and the values of query parameters that carry credentials
  (``access_token``, ``sign``, ``key`` …), for secrets that came from somewhere else;
* shortens every e-mail address to its first letters (``a…@e….org``): enough for the owner
  to tell two recipients apart, not enough to harvest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

EMAIL = re.compile(r"(?<![\w.+-])([\w.+-])[\w.+-]*@([\w-])[\w.-]*(\.[A-Za-z]{2,})(?![\w-])")
URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)[^/\s@]+@", re.IGNORECASE)
CREDENTIAL_PARAMETER = re.compile(
    r"([?&](?:access_token|token|key|api_key|apikey|secret|sign|signature|sig|auth"
    r"|password|code)=)[^&\s\"']+",
    re.IGNORECASE,
)
MIN_SECRET = 6  # shorter values (a "1", a "true") are not secrets worth hiding everywhere


class Redaction:
    """The secrets of this process, and the masking of any line."""

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}  # value -> the variable it came from

    def hide(self, secrets: Mapping[str, str]) -> None:
        """Hide these values (``{variable: value}``) from every later line."""
        for variable, value in secrets.items():
            if value and len(value) >= MIN_SECRET:
                self._secrets[value] = variable

    def apply(self, text: str) -> str:
        # longest first, so a URL is replaced whole before a token inside it
        for value in sorted(self._secrets, key=len, reverse=True):
            if value in text:
                text = text.replace(value, f"<${self._secrets[value]}>")
        text = URL_PASSWORD.sub(r"\1•••@", text)
        text = CREDENTIAL_PARAMETER.sub(r"\1•••", text)
        return EMAIL.sub(r"\1…@\2…\3", text)
