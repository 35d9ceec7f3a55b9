"""A real S3 endpoint on loopback for the object-store tests: moto's standalone server, reached through s3fs."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

AWS_VARS = ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")


@contextlib.contextmanager
def moto_s3() -> Iterator[str]:
    """Start moto's S3 server on a free loopback port and point the standard AWS variables at it.

    Yields the endpoint URL; the variables are restored and the server stopped afterwards.
    """
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    saved = {k: os.environ.get(k) for k in AWS_VARS}
    endpoint = f"http://{host}:{port}"
    os.environ.update(
        AWS_ENDPOINT_URL=endpoint,
        AWS_ACCESS_KEY_ID="simkit-test",
        AWS_SECRET_ACCESS_KEY="simkit-test",
        AWS_DEFAULT_REGION="us-east-1",
    )
    from s3fs import S3FileSystem

    S3FileSystem.clear_instance_cache()  # a client cached for an earlier server keeps that server's endpoint
    try:
        yield endpoint
    finally:
        S3FileSystem.clear_instance_cache()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        server.stop()


def s3fs():
    """A fresh s3fs filesystem without listing cache (sees what other processes wrote)."""
    import fsspec

    return fsspec.filesystem("s3", use_listings_cache=False, skip_instance_cache=True)


def make_bucket(name: str) -> str:
    s3fs().mkdir(name)
    return name


def s3_shard_bytes(url: str) -> dict[str, bytes]:
    """name -> bytes of every shard tar object under the corpus URL ``s3://BUCKET/PATH``."""
    fs = s3fs()
    prefix = url.removeprefix("s3://").rstrip("/") + "/shards"
    return {Path(p).name: fs.cat(p) for p in sorted(fs.glob(prefix + "/*.tar"))}


def s3_names(url: str) -> list[str]:
    """Names of every object under the corpus URL, relative to it."""
    fs = s3fs()
    prefix = url.removeprefix("s3://").rstrip("/")
    return sorted(p[len(prefix) + 1 :] for p in fs.find(prefix))
