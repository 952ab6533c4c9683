"""Tsukuru 10 Ten (placeholder card)."""
