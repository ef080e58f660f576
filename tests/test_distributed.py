"""Data-parallel gradients on a two-worker dask LocalCluster (processes):
the example's per-shard gradients summed against the one-process gradient
and finite differences."""
import os
import sys

import numpy as np
import pytest

from gradcheck import numerical_grad

distributed = pytest.importorskip("distributed")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import distributed_gradient as example  # noqa: E402


def test_shard_gradients_on_a_local_cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        value, (dw, db) = example.run(client, points=600, features=3, n_shards=3)
        X, y = example.make_data(600, 3)
        w, b = np.full(3, 0.1), 0.05
        f = example.negative_log_likelihood
        np.testing.assert_allclose(value, f(w, b, X, y), rtol=1e-12)
        np.testing.assert_allclose(dw, numerical_grad(f, (w, b, X, y), 0), rtol=1e-6)
        np.testing.assert_allclose(db, numerical_grad(f, (w, b, X, y), 1), rtol=1e-6)
        workers = client.run(lambda: os.getpid())
        assert len(set(workers.values()) | {os.getpid()}) == 3  # two other processes
