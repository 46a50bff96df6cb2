"""The command-line tool: argument parsing, one `cmd_*.py` per subcommand, terminal output
(progress bars, colour), and the workers that spread a sweep over processes or a Dask cluster.

May import every layer below (presentation, proofs, platforms, impl, spec, runtime). Nothing
imports it except `vredmax.__main__`. Entry point: `vredmax.cli.main:entry`.
"""
