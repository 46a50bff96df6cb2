"""What every layer may use to behave well as a process: exit codes and the user-error type
(`errors`), files written whole or not at all (`outputs`), Ctrl-C that stops at once, even
inside a solver query (`interrupts`).

Imports nothing of the project.
"""
