"""The ``execretrieval`` command: one module per subcommand, imported only when it runs."""
