"""Placeholder replaced below."""

from gameshelf.training.agents.base import RandomAgent as MatchstickHeuristic

__all__ = ["MatchstickHeuristic"]
