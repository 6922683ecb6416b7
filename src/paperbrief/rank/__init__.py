"""rank stage."""
