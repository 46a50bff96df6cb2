"""vredmax: the reference specification of RISC-V vredmax.vs and its tools.

The layers live in subpackages: `vredmax.spec` (the architecture), `vredmax.impl` (the
algorithms), `vredmax.proofs` (solver queries); the command-line tool is `vredmax.cli.main`.
Plug-in authors use `vredmax.api`. Importing this package imports nothing else.
"""

from pkgutil import extend_path

__version__ = "0.2.0"

# Run from the repository's root (`python -m vredmax`, pytest), the folder vredmax/ shadows the
# installed package, which holds spec/, impl/, proofs/, ... too: the package's path takes in
# every vredmax/ folder on sys.path (the strict editable install's link tree of `make setup`).
# Editors' jedi reads this line the same way.
__path__ = extend_path(__path__, __name__)
