"""deliver stage."""
