"""evals: the scenario engine, cassettes, scorers, results and reports around memsys."""

__all__: list[str] = []
