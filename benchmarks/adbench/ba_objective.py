# Copyright (c) Microsoft Corporation.
# Licensed under the MIT license.

import numpy as np

import s2sad


# implementing derivative of cross

@s2sad.custom_vjp
def cross(a, b):
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


def make_grad_cross_0(ans, a, b):
    def gradient_product(g):
        return cross(g, -b)
    return gradient_product


def make_grad_cross_1(ans, a, b):
    def gradient_product(g):
        return cross(g, a)
    return gradient_product


# (autograd's cross.defgrad(make_grad_cross_0, argnum=0) and argnum=1)
def cross_fwd(a, b):
    return cross(a, b), (a, b)


def cross_bwd(residuals, g):
    a, b = residuals
    return make_grad_cross_0(None, a, b)(g), make_grad_cross_1(None, a, b)(g)


cross.defvjp(cross_fwd, cross_bwd)

######### BA objective in Python #############

BA_NCAMPARAMS = 11
ROT_IDX = 0
C_IDX = 3
F_IDX = 6
X0_IDX = 7
RAD_IDX = 9


def rodrigues_rotate_point(rot, X):
    sqtheta = np.sum(np.square(rot))
    if sqtheta != 0.:
        theta = np.sqrt(sqtheta)
        costheta = np.cos(theta)
        sintheta = np.sin(theta)
        theta_inverse = 1. / theta

        w = theta_inverse * rot
        w_cross_X = cross(w, X)
        tmp = np.dot(w, X) * (1. - costheta)

        return X * costheta + w_cross_X * sintheta + w * tmp
    else:
        return X + cross(rot, X)


def radial_distort(rad_params, proj):
    rsq = np.sum(np.square(proj))
    L = 1. + rad_params[0] * rsq + rad_params[1] * rsq * rsq
    return proj * L


def project(cam, X):
    Xcam = rodrigues_rotate_point(
        cam[ROT_IDX: ROT_IDX + 3], X - cam[C_IDX: C_IDX + 3])
    distorted = radial_distort(cam[RAD_IDX: RAD_IDX + 2], Xcam[0:2] / Xcam[2])
    return distorted * cam[F_IDX] + cam[X0_IDX: X0_IDX + 2]


def compute_reproj_err(cam, X, w, feat):
    return w * (project(cam, X) - feat)


def ba_objective(cams, X, w, obs, feats):
    p = obs.shape[0]
    reproj_err = np.empty((p, 2))
    for i in range(p):
        reproj_err[i] = compute_reproj_err(
            cams[obs[i, 0]], X[obs[i, 1]], w[i], feats[i])

    w_err = 1. - np.square(w)

    return (reproj_err, w_err)

