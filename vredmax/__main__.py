"""`python -m vredmax`: the same as the `vredmax` command."""

if __name__ == "__main__":  # worker processes import this module again: they must not run it
    from vredmax.cli.main import entry

    entry()
