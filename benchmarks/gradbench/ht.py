"""ht: ADBench's hand tracking: skin a 22-bone hand model posed by theta and
measure its distance to observed points, and the dense Jacobian of those
residuals w.r.t. theta (and, in the complicated variant, each point's
barycentric coordinates us).

The Jacobian w.r.t. theta is s2sad.jacobian in forward mode: its 26 jvps
in one compiled call (vector mode). Each residual depends on its own
point's us alone, so one jvp along all of us's column c gives the whole
column c of that block (two jvps, seeded by hand)."""
import math

import numpy as np
import s2sad

from ._common import Function, matrix, primal, vector


def euler_rotation(a0, a1, a2):
    """Rz(a1) @ Ry(a2) @ Rx(a0)."""
    cx, sx = math.cos(a0), math.sin(a0)
    cz, sz = math.cos(a1), math.sin(a1)
    cy, sy = math.cos(a2), math.sin(a2)
    R = np.empty((3, 3))
    R[0, 0] = cz * cy
    R[0, 1] = cz * sy * sx - sz * cx
    R[0, 2] = cz * sy * cx + sz * sx
    R[1, 0] = sz * cy
    R[1, 1] = sz * sy * sx + cz * cx
    R[1, 2] = sz * sy * cx - cz * sx
    R[2, 0] = -sy
    R[2, 1] = cy * sx
    R[2, 2] = cy * cx
    return R


def angle_axis_rotation(a0, a1, a2):
    R = np.zeros((3, 3))
    norm = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    if norm < 1e-4:
        R[0, 0] = 1.0
        R[1, 1] = 1.0
        R[2, 2] = 1.0
        return R
    x = a0 / norm
    y = a1 / norm
    z = a2 / norm
    s = math.sin(norm)
    c = math.cos(norm)
    R[0, 0] = x * x + (1.0 - x * x) * c
    R[0, 1] = x * y * (1.0 - c) - z * s
    R[0, 2] = x * z * (1.0 - c) + y * s
    R[1, 0] = x * y * (1.0 - c) + z * s
    R[1, 1] = y * y + (1.0 - y * y) * c
    R[1, 2] = y * z * (1.0 - c) - x * s
    R[2, 0] = x * z * (1.0 - c) - y * s
    R[2, 1] = y * z * (1.0 - c) + x * s
    R[2, 2] = z * z + (1.0 - z * z) * c
    return R


def bone_angles(theta, bones):
    """Euler angles per bone: three bones per finger (2-4 thumb, 6-8 index,
    ...); the wrist, each finger's first bone and the forearm stay at zero."""
    angles = np.zeros((bones, 3))
    for f in range(5):
        bone = 2 + 4 * f
        angles[bone, 0] = theta[6 + 4 * f]
        angles[bone, 1] = theta[7 + 4 * f]
        angles[bone + 1, 0] = theta[8 + 4 * f]
        angles[bone + 2, 0] = theta[9 + 4 * f]
    return angles


def skinned_vertices(theta, parents, base_relatives, inverse_base_absolutes, base_positions,
                     weights, mirrored):
    bones = parents.shape[0]
    angles = bone_angles(theta, bones)
    absolutes = np.empty((bones, 4, 4))
    transforms = np.empty((bones, 4, 4))
    for i in range(bones):
        T = np.eye(4)
        T[0:3, 0:3] = euler_rotation(angles[i, 0], angles[i, 1], angles[i, 2])
        relative = base_relatives[i] @ T
        if parents[i] == -1:
            absolutes[i] = relative
        else:
            absolutes[i] = absolutes[parents[i]] @ relative
        transforms[i] = absolutes[i] @ inverse_base_absolutes[i]
    nv = base_positions.shape[0]
    pos = np.zeros((nv, 3))
    for v in range(nv):
        for i in range(bones):
            for r in range(3):
                moved = 0.0
                for c in range(4):
                    moved += transforms[i, r, c] * base_positions[v, c]
                pos[v, r] += weights[v, i] * moved
    if mirrored:
        for v in range(nv):
            pos[v, 0] = -pos[v, 0]
    Rg = angle_axis_rotation(theta[0], theta[1], theta[2])
    out = np.empty((nv, 3))
    for v in range(nv):
        for r in range(3):
            out[v, r] = (Rg[r, 0] * pos[v, 0] + Rg[r, 1] * pos[v, 1] + Rg[r, 2] * pos[v, 2]
                         + theta[3 + r])
    return out


def simple(theta, parents, base_relatives, inverse_base_absolutes, base_positions, weights,
           mirrored, correspondences, points):
    """Residuals (npts, 3): each point against its vertex."""
    pos = skinned_vertices(theta, parents, base_relatives, inverse_base_absolutes,
                           base_positions, weights, mirrored)
    err = np.empty((points.shape[0], 3))
    for i in range(points.shape[0]):
        for j in range(3):
            err[i, j] = points[i, j] - pos[correspondences[i], j]
    return err


def complicated(theta, us, parents, base_relatives, inverse_base_absolutes, base_positions,
                weights, mirrored, correspondences, triangles, points):
    """Residuals (npts, 3): each point against a point of its triangle,
    given by its barycentric coordinates us[i]."""
    pos = skinned_vertices(theta, parents, base_relatives, inverse_base_absolutes,
                           base_positions, weights, mirrored)
    err = np.empty((points.shape[0], 3))
    for i in range(points.shape[0]):
        tri = correspondences[i]
        u0 = us[i, 0]
        u1 = us[i, 1]
        for j in range(3):
            hit = (u0 * pos[triangles[tri, 0], j] + u1 * pos[triangles[tri, 1], j]
                   + (1.0 - u0 - u1) * pos[triangles[tri, 2], j])
            err[i, j] = points[i, j] - hit
    return err


def integers(values):
    return np.ascontiguousarray(np.asarray(values, dtype=np.int64))


def inputs(inp):
    data, model = inp["data"], inp["data"]["model"]
    bones = int(model["bone_count"])
    model_args = (integers(model["parents"]),
                  vector(model["base_relatives"]).reshape(bones, 4, 4),
                  vector(model["inverse_base_absolutes"]).reshape(bones, 4, 4),
                  matrix(model["base_positions"], 4), matrix(model["weights"], bones),
                  bool(model["is_mirrored"]), integers(data["correspondences"]))
    theta, points = vector(inp["theta"]), matrix(data["points"], 3)
    if len(inp["us"]) == 0:
        return (False, theta) + model_args + (points,)
    return ((True, theta, matrix(inp["us"], 2)) + model_args
            + (integers(model["triangles"]).reshape(-1, 3), points))


def define(jit):
    objectives = {False: primal(simple, jit), True: primal(complicated, jit)}
    d_theta = {False: s2sad.jacobian(simple, wrt=0, mode="fwd", jit=jit),
               True: s2sad.jacobian(complicated, wrt=0, mode="fwd", jit=jit)}
    d_us = s2sad.jvp(complicated, wrt=1, jit=jit, boundscheck=False)

    def objective(is_complicated, *args):
        return objectives[is_complicated](*args).ravel()

    def jacobian(is_complicated, *args):
        theta = args[0]
        rows = args[-1].shape[0] * 3
        by_theta = d_theta[is_complicated](*args).reshape(rows, theta.shape[0])
        if not is_complicated:
            return by_theta
        us = args[1]
        J = np.empty((rows, 2 + theta.shape[0]))
        for c in range(2):
            tangent = np.zeros_like(us)
            tangent[:, c] = 1.0
            J[:, c] = d_us(*args, tangent)[1].ravel()
        J[:, 2:] = by_theta
        return J

    for is_complicated in (False, True):
        args = inputs(_tiny_input(is_complicated))
        objective(*args)
        jacobian(*args)
    return {"objective": Function(objective, inputs), "jacobian": Function(jacobian, inputs)}


def _tiny_input(is_complicated):
    """A 22-bone model with 3 vertices, for compiling at define."""
    bones = 22
    eye = np.eye(4).tolist()
    model = {"bone_count": bones, "parents": [-1] + [0] * (bones - 1),
             "base_relatives": [eye] * bones, "inverse_base_absolutes": [eye] * bones,
             "base_positions": [[0.1, 0.2, 0.3, 1.0], [0.3, 0.1, 0.2, 1.0], [0.2, 0.3, 0.1, 1.0]],
             "weights": [[1.0 / bones] * bones] * 3, "triangles": [[0, 1, 2]],
             "is_mirrored": False}
    data = {"model": model, "points": [[0.0, 0.0, 0.0]],
            "correspondences": [0] if is_complicated else [1]}
    return {"theta": [0.1] * 26, "us": [[0.3, 0.3]] if is_complicated else [], "data": data}
