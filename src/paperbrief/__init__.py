"""paperbrief: a personalized daily deep-read digest of new arXiv papers."""

__version__ = "0.2.0"
