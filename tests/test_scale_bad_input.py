"""Bad input to the object-store surfaces, as a new user types it: one clear line, never a traceback."""

from __future__ import annotations

import pytest
from enginehelp import simkit_cli

from simkit.core.errors import SimkitError
from simkit.episodes.storage import corpus_path


@pytest.mark.parametrize("url", ["s3://", "s3:///x", "gs://"])
def test_an_object_store_url_without_a_bucket_is_one_line(url):
    if url.startswith("s3"):
        with pytest.raises(SimkitError, match=r"no bucket in the URL; write s3://BUCKET/PATH"):
            corpus_path(url)
    for cmd in (["generate", "toy", "--n", "1", "--out", url], ["validate", url]):
        proc = simkit_cli(*cmd)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"error: {url}: "), proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
