"""Agents, training with Stable-Baselines3, evaluation, ratings and human play."""
