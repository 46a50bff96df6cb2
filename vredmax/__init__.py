"""vredmax: the reference specification of RISC-V vredmax.vs and its tools.

The layers live in subpackages: `vredmax.spec` (the architecture), `vredmax.impl` (the
algorithms), `vredmax.proofs` (solver queries); the command-line tool is `vredmax.cli.main`.
Plug-in authors use `vredmax.api`. Importing this package imports nothing else.
"""

__version__ = "0.2.0"
