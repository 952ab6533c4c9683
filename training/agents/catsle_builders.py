"""Placeholder."""

class CatsleHeuristic:
    name = "heuristic"
    def act(self, state, seat, rng):
        legal = state.legal_actions()
        return int(legal[0])
