"""Data-parallel gradients on dask.distributed: the loss is a sum over data
shards, so its gradient is the sum of per-shard gradients, each computed by
a worker with the same s2sad derivative.

Run:  python examples/distributed_gradient.py                  (a 2-worker LocalCluster)
      python examples/distributed_gradient.py --scheduler tcp://host:8786

Needs the `distributed` extra: pip install -e ".[distributed]".

A derivative pickles as a reference to its function (module + name), and
each worker generates it (or loads it from its cache) from the source it
imports. So the workers must be able to import the function: this script
imports itself as the module `distributed_gradient` and uploads that file
to the workers (for a cluster whose machines do not share this folder).
"""
import argparse
import os
import sys

import numpy as np

import s2sad


def negative_log_likelihood(w, b, X, y):
    """Logistic regression over the points of one shard, as loops."""
    total = 0.0
    for i in range(X.shape[0]):
        z = b
        for j in range(X.shape[1]):
            z += X[i, j] * w[j]
        # log(1 + exp(z)) - y z, stable for both signs of z
        total += max(z, 0.0) + np.log1p(np.exp(-abs(z))) - y[i] * z
    return total


def make_data(points, features, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(points, features))
    w_true = rng.normal(size=features)
    y = (rng.random(points) < 1.0 / (1.0 + np.exp(-X @ w_true))).astype(float)
    return X, y


def distributed_value_and_grad(client, value_and_grad, w, b, shards):
    """The loss and its gradient summed over the shards (each a pair of
    futures of X and y already on the workers)."""
    futures = [client.submit(value_and_grad, w, b, X, y, pure=False) for X, y in shards]
    parts = client.gather(futures)
    value = sum(v for v, _ in parts)
    dw = sum(g[0] for _, g in parts)
    db = sum(g[1] for _, g in parts)
    return value, (dw, db)


def run(client, points=20_000, features=8, n_shards=4):
    """Compare the distributed loss and gradient with the one-process ones."""
    import distributed_gradient as model  # the workers import it by this name
    client.upload_file(model.__file__)
    value_and_grad = s2sad.value_and_grad(model.negative_log_likelihood, wrt=("w", "b"))

    X, y = make_data(points, features)
    w, b = np.full(features, 0.1), 0.05
    bounds = np.linspace(0, points, n_shards + 1).astype(int)
    shards = [(client.scatter(X[lo:hi]), client.scatter(y[lo:hi]))
              for lo, hi in zip(bounds[:-1], bounds[1:])]

    value, (dw, db) = distributed_value_and_grad(client, value_and_grad, w, b, shards)
    value1, (dw1, db1) = value_and_grad(w, b, X, y)  # one process
    print(f"loss over {n_shards} shards on {len(client.scheduler_info()['workers'])} "
          f"workers: {value:.10f} (one process: {value1:.10f})")
    print(f"max |gradient difference|: {max(np.max(np.abs(dw - dw1)), abs(db - db1)):.2e}")
    # the same sums in another order: equal to rounding
    assert np.isclose(value, value1, rtol=1e-12)
    np.testing.assert_allclose(dw, dw1, rtol=1e-10, atol=1e-10)
    assert np.isclose(db, db1, rtol=1e-10, atol=1e-10)
    return value, (dw, db)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", help="address of an existing dask scheduler")
    parser.add_argument("--points", type=int, default=20_000)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args()

    from dask.distributed import Client, LocalCluster
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if args.scheduler:
        with Client(args.scheduler) as client:
            run(client, args.points, n_shards=args.shards)
    else:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            run(client, args.points, n_shards=args.shards)
    print("The distributed gradient matches the one-process gradient.")


if __name__ == "__main__":
    main()
