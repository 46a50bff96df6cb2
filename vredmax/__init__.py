"""The vredmax command-line tool."""
