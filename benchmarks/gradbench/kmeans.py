"""kmeans: the k-means cost Σᵢ minⱼ ‖Pᵢ − Cⱼ‖², and the Newton direction
J / diag(H) w.r.t. the centroids: the gradient by reverse mode, the Hessian
diagonal as a Hessian-vector product with ones (forward over reverse; the
Hessian is diagonal, so H·1 is its diagonal)."""
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
    gradient = s2sad.grad(kmeans, jit=jit, boundscheck=False)
    hvp = s2sad.hvp(kmeans, jit=jit)

    def direction(centroids, points):
        return gradient(centroids, points) / hvp(centroids, points, np.ones_like(centroids))

    args = (np.array([[0.5, 0.5], [5.0, 4.0]]), np.array([[0.0, 0.0], [1.0, 0.0], [6.0, 5.0]]))
    cost(*args)
    direction(*args)
    return {"cost": Function(cost, inputs), "dir": Function(direction, inputs)}
