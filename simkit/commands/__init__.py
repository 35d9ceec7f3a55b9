"""CLI subcommands contributed per generator family (light imports only; see simkit.cli)."""

import typer


def fail(msg: str, code: int = 2) -> None:
    """Print ``error: msg`` to stderr and exit with ``code`` (2: bad input), the CLI's one error path."""
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(code)
