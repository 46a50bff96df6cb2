from vredmax.cli import entry

entry()
