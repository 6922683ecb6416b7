"""fulltext stage."""
