"""Safe parsing of untrusted XML (feeds and API answers from the network)."""

from __future__ import annotations

from lxml import etree

from paperbrief.errors import FeedParseError


def parse_untrusted_xml(content: bytes, source: str) -> etree._Element:
    """Parse ``content`` without resolving entities, DTDs or network references.

    Raises ``FeedParseError`` naming ``source`` and the parser's line/column for anything
    that is not well-formed XML (e.g. a feed truncated mid-entry) or is empty.
    """
    if not content.strip():
        raise FeedParseError(
            f"{source} is empty",
            hint="arXiv sent an empty body; rerun later or use the /list page fallback",
        )
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    try:
        return etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError as error:
        line, column = error.position if error.position else (0, 0)
        raise FeedParseError(
            f"{source} is not well-formed XML (line {line}, column {column}: {error.msg}); "
            "it may be truncated",
            hint="the download was cut off or arXiv sent an error page; rerun later",
        ) from error
