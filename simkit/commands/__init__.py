"""CLI subcommands contributed per generator family (light imports only; see simkit.cli)."""
