"""The benchmark room: how agents are measured against one another under one protocol.

* ``protocol``: which games are played, on which deals, in which seats, and how one game is run;
* ``ladder``: ``gameshelf benchmark``, an agent against the baseline ladder, and the statistics of a run
  (the games file, pairings, ratings with bootstrap intervals, normalized scores);
* ``leaderboard``: ``gameshelf leaderboard``, one table from many benchmark results;
* ``analysis``: ``gameshelf analyze ID``, what a game is like to play and to learn;
* ``ratings``: Elo (a Bradley–Terry fit) and OpenSkill ratings from played games (also used by
  ``training.evaluate``).

docs/protocol.md explains the protocol with examples. Importing this package imports none of them.
"""
