"""The ``memeval`` command line: one module per subcommand, each a thin wrapper."""

__all__: list[str] = []
