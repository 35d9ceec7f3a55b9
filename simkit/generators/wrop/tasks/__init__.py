"""One module per WROP task generator (discovered by :func:`simkit.generators.wrop.base.catalogue`)."""
