"""Inputs for ADBench's objectives, of the shapes ADBench's data files give
them, small enough for finite differences: each case is (name, the
derivative ADBench asks for, the objective, its arguments, wrt)."""
import numpy as np

from .ba_objective import ba_objective
from .gmm_objective import gmm_objective
from .hand_objective import hand_objective, hand_objective_complicated
from .lstm_objective import lstm_objective


def gmm_args(rng, d=3, k=4, n=5):
    """alphas, means, icf, x, wishart gamma and m (ADBench's gmm_d*_K* files)."""
    return (rng.standard_normal(k), rng.standard_normal((k, d)),
            rng.standard_normal((k, d + d * (d - 1) // 2)) * 0.3,
            rng.standard_normal((n, d)), 1.0, 0)


def ba_args(rng, ncams=3, npts=4, nobs=6):
    """cams (11 parameters each), points, weights, observations (camera,
    point) and features (ADBench's ba*_n*_m*_p* files)."""
    cams = rng.standard_normal((ncams, 11)) * 0.1
    cams[:, 6] = 1.0  # focal length
    X = rng.standard_normal((npts, 3))
    X[:, 2] += 5.0  # in front of the cameras
    w = rng.uniform(0.5, 1.5, nobs)
    obs = np.stack([rng.integers(0, ncams, nobs), rng.integers(0, npts, nobs)], axis=1)
    return cams, X, w, obs, rng.standard_normal((nobs, 2))


def lstm_args(rng, layers=2, b=3, c=4):
    """main and extra parameters, state, sequence (ADBench's lstm_l*_c* files)."""
    return (rng.standard_normal((2 * layers, 4 * b)) * 0.5, rng.standard_normal((3, b)) * 0.5,
            rng.standard_normal((2 * layers, b)) * 0.5, rng.standard_normal((c, b)))


def _hand_model(rng, nverts=8, npts=6):
    nbones = 22  # 26 pose parameters (to_pose_params) fill 25 rows
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, nbones)])
    base_relatives = rng.standard_normal((nbones, 4, 4)) * 0.3
    base_relatives[:, 3, :] = [0, 0, 0, 1]
    inverse_base_absolutes = rng.standard_normal((nbones, 4, 4)) * 0.3
    base_positions = np.concatenate([rng.standard_normal((nverts, 3)), np.ones((nverts, 1))], axis=1)
    weights = rng.uniform(0, 1, (nverts, nbones))
    points = rng.standard_normal((npts, 3))
    correspondences = rng.integers(0, nverts, npts)
    return (nbones, parents, base_relatives, inverse_base_absolutes, base_positions, weights,
            False, points, correspondences)


def hand_args(rng):
    """theta and the hand model (ADBench's hand*_t*_c* files)."""
    return (rng.standard_normal(26) * 0.3,) + _hand_model(rng)


def hand_complicated_args(rng, ntriangles=5):
    """(us, theta) and the hand model with its triangles."""
    model = _hand_model(rng)
    npts, nverts = model[-2].shape[0], model[4].shape[0]
    triangles = rng.integers(0, nverts, (ntriangles, 3))
    model = model[:-1] + (rng.integers(0, ntriangles, npts), triangles)
    params = np.concatenate([rng.uniform(0, 0.5, 2 * npts), rng.standard_normal(26) * 0.3])
    return (params,) + model


def cases(seed=0):
    rng = np.random.default_rng(seed)
    return [
        ("gmm", "grad", gmm_objective, gmm_args(rng), (0, 1, 2)),
        ("ba", "jacobian", ba_objective, ba_args(rng), (0, 1, 2)),
        ("lstm", "grad", lstm_objective, lstm_args(rng), (0, 1)),
        ("ht", "jacobian", hand_objective, hand_args(rng), 0),
        ("ht_complicated", "jacobian", hand_objective_complicated, hand_complicated_args(rng), 0),
    ]
