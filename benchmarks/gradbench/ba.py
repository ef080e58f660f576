"""ba: ADBench's bundle adjustment: reprojection residuals of p observations
(camera o mod n sees point o mod m) and their sparse Jacobian.

Each residual pair depends only on its observation's 15 parameters (camera,
point, weight), so the objective is written over a (p, 15) table of them,
gathered from the cameras, points and weights. Two vjps, seeded with the x
and then the y residual of every observation, give all 2p rows of the
Jacobian at once. That is what s2sad.batch_jacobian does, but it also runs
the objective as plain Python to learn the output's shape (a Python loop over
a million observations), so the vjps are called directly. The Jacobian is
then laid out in CSR form."""
import math

import numpy as np
import s2sad

from ._common import Function, primal, vector


def project(r0, r1, r2, c0, c1, c2, f, u0, v0, k1, k2, x0, x1, x2):
    """The image of point x by the camera (rotation r, centre c, focal
    length f, principal point u0, v0, distortion k1, k2). Scalar arguments:
    the vjp of a helper taking an array (a row of params) allocates an
    adjoint array per call, and that doubled the Jacobian's time."""
    y0 = x0 - c0
    y1 = x1 - c1
    y2 = x2 - c2
    theta2 = r0 * r0 + r1 * r1 + r2 * r2
    if theta2 != 0.0:  # Rodrigues' rotation about r / |r| by |r|
        theta = math.sqrt(theta2)
        c = math.cos(theta)
        s = math.sin(theta)
        w0 = r0 / theta
        w1 = r1 / theta
        w2 = r2 / theta
        dot = (w0 * y0 + w1 * y1 + w2 * y2) * (1.0 - c)
        z0 = y0 * c + (w1 * y2 - w2 * y1) * s + w0 * dot
        z1 = y1 * c + (w2 * y0 - w0 * y2) * s + w1 * dot
        z2 = y2 * c + (w0 * y1 - w1 * y0) * s + w2 * dot
    else:  # first order, which also gives the derivative at r = 0
        z0 = y0 + r1 * y2 - r2 * y1
        z1 = y1 + r2 * y0 - r0 * y2
        z2 = y2 + r0 * y1 - r1 * y0
    p0 = z0 / z2
    p1 = z1 / z2
    rho = p0 * p0 + p1 * p1
    distortion = 1.0 + k1 * rho + k2 * rho * rho
    return f * p0 * distortion + u0, f * p1 * distortion + v0


def reprojection(params, feats):
    """Weighted reprojection residuals, (p, 2); params[o] = [r0 r1 r2 C0 C1
    C2 f u0 v0 k1 k2 X0 X1 X2 w] for observation o."""
    err = np.empty((params.shape[0], 2))
    for o in range(params.shape[0]):
        px, py = project(params[o, 0], params[o, 1], params[o, 2], params[o, 3], params[o, 4],
                         params[o, 5], params[o, 6], params[o, 7], params[o, 8], params[o, 9],
                         params[o, 10], params[o, 11], params[o, 12], params[o, 13])
        err[o, 0] = params[o, 14] * (px - feats[o, 0])
        err[o, 1] = params[o, 14] * (py - feats[o, 1])
    return err


def weight_error(w):
    err = np.empty(w.shape[0])
    for o in range(w.shape[0]):
        err[o] = 1.0 - w[o] * w[o]
    return err


def inputs(inp):
    """Expand the compressed input: n cameras, m points, p observations."""
    n, m, p = int(inp["n"]), int(inp["m"]), int(inp["p"])
    cams = np.tile(vector(inp["cam"]), (n, 1))
    points = np.tile(vector(inp["x"]), (m, 1))
    w = np.full(p, float(inp["w"]))
    feats = np.tile(vector(inp["feat"]), (p, 1))
    obs = np.arange(p)
    return cams, points, w, feats, obs % n, obs % m


def gather(cams, points, w, cam_of, point_of):
    """The (p, 15) table of each observation's parameters."""
    params = np.empty((w.shape[0], 15))
    params[:, 0:11] = cams[cam_of]
    params[:, 11:14] = points[point_of]
    params[:, 14] = w
    return params


def csr(d_x, d_y, d_w, n, m, cam_of, point_of):
    """rows, cols, vals of the (3p, 11n + 3m + p) Jacobian, row by row: the
    rows of observation o's residuals (15 entries: its camera, point and
    weight), then the weight residuals (1 entry each)."""
    p = d_w.shape[0]
    rows = np.empty(3 * p + 1, dtype=np.int64)
    cols = np.empty(31 * p, dtype=np.int64)
    vals = np.empty(31 * p)
    for r in range(2 * p + 1):
        rows[r] = 15 * r
    for o in range(p):
        rows[2 * p + 1 + o] = 30 * p + 1 + o
    for o in range(p):
        k = 30 * o  # the x row's 15 entries, then the y row's
        for c in range(15):
            if c < 11:
                col = 11 * cam_of[o] + c
            elif c < 14:
                col = 11 * n + 3 * point_of[o] + c - 11
            else:
                col = 11 * n + 3 * m + o
            cols[k + c] = col
            cols[k + 15 + c] = col
            vals[k + c] = d_x[o, c]
            vals[k + 15 + c] = d_y[o, c]
        cols[30 * p + o] = 11 * n + 3 * m + o
        vals[30 * p + o] = d_w[o]
    return rows, cols, vals


def objective_output(result):
    reproj, w_err = result
    p = w_err.shape[0]
    return {"reproj_error": {"elements": reproj[0].tolist(), "repeated": p},
            "w_err": {"element": float(w_err[0]), "repeated": p}}


def jacobian_output(result):
    rows, cols, vals = result
    def head(a):
        return a[:30].tolist() + [a[-1].item()]
    return {"rows": head(rows), "cols": head(cols), "vals": head(vals)}


def define(jit):
    reproj = primal(reprojection, jit)
    w_error = primal(weight_error, jit)
    d_reproj = s2sad.vjp(reprojection, jit=jit, boundscheck=False)
    d_w_error = s2sad.vjp(weight_error, jit=jit, boundscheck=False)
    sparse = primal(csr, jit)  # not differentiated: numba for the layout loop

    def objective(cams, points, w, feats, cam_of, point_of):
        return reproj(gather(cams, points, w, cam_of, point_of), feats), w_error(w)

    def jacobian(cams, points, w, feats, cam_of, point_of):
        params = gather(cams, points, w, cam_of, point_of)
        p = w.shape[0]
        seed = np.zeros((p, 2))
        seed[:, 0] = 1.0
        d_x = d_reproj(params, feats, seed)  # row o: d err[o, 0] / d params[o]
        seed[:, 0] = 0.0
        seed[:, 1] = 1.0
        d_y = d_reproj(params, feats, seed)
        d_w = d_w_error(w, np.ones(p))  # the weights' block is diagonal
        return sparse(d_x, d_y, d_w, cams.shape[0], points.shape[0], cam_of, point_of)

    tiny = inputs({"n": 2, "m": 3, "p": 4, "cam": [0.1, -0.2, 0.05, 0.5, -0.3, -4, 500, 10, -5,
                                                      0.001, -1e-5],
                   "x": [0.2, 0.1, 1.0], "w": 0.8, "feat": [40.0, -20.0]})
    objective(*tiny)
    jacobian(*tiny)
    zero = tiny[0].copy()
    zero[:, 0:3] = 0.0  # the r = 0 branch
    jacobian(zero, *tiny[1:])
    return {"objective": Function(objective, inputs, objective_output),
            "jacobian": Function(jacobian, inputs, jacobian_output)}
