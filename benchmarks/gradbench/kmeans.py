"""kmeans: the k-means cost Σᵢ minⱼ ‖Pᵢ − Cⱼ‖², and the Newton direction
J / diag(H) w.r.t. the centroids: the gradient and the Hessian diagonal
from one forward-over-reverse pass, the jvp of the gradient along ones
(its value is the gradient, its tangent H·1, which is the diagonal: the
Hessian is diagonal)."""
import numpy as np
import s2sad

from ._common import Function, matrix, primal


def kmeans(centroids, points):
    total = 0.0
    for i in range(points.shape[0]):
        # assign the point to its nearest centroid (ties to the lowest index);
        # the assignment is piecewise constant and needs no gradient
        nearest = 0
        best = 0.0
        for j in range(centroids.shape[0]):
            dist = 0.0
            for e in range(points.shape[1]):
                diff = points[i, e] - centroids[j, e]
                dist += diff * diff
            if j == 0 or dist < best:
                best = dist
                nearest = j
        # the cost: the squared distance to that centroid
        for e in range(points.shape[1]):
            residual = points[i, e] - centroids[nearest, e]
            total += residual * residual
    return total


def inputs(inp):
    d = len(inp["points"][0])
    return (matrix(inp["centroids"], d), matrix(inp["points"], d))


def define(jit):
    cost = primal(kmeans, jit)
    gradient_and_hvp = s2sad.jvp(s2sad.grad(kmeans, boundscheck=False), wrt=0, jit=jit,
                                 boundscheck=False)  # (the jvp around it checks none either)

    def direction(centroids, points):
        gradient, diagonal = gradient_and_hvp(centroids, points, np.ones_like(centroids))
        return gradient / diagonal

    args = (np.array([[0.5, 0.5], [5.0, 4.0]]), np.array([[0.0, 0.0], [1.0, 0.0], [6.0, 5.0]]))
    cost(*args)
    direction(*args)
    return {"cost": Function(cost, inputs), "dir": Function(direction, inputs)}
