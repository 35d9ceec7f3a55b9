"""Navigation generators: ``foa-nav`` (:mod:`~simkit.generators.nav.generator`, its sample checks in
:mod:`~simkit.generators.nav.checks`)."""
