"""Render a Digest: the Markdown blog post and the standalone HTML page."""

from paperbrief.render.html import render_html
from paperbrief.render.markdown import escape_md, front_matter, render_markdown

__all__ = ["escape_md", "front_matter", "render_html", "render_markdown"]
