"""isinstance questions about a container parameter, answered by its
structure before it is flattened, and the branch not taken dropped
(transforms/frontend/containers/container_types.py, flatten.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_tree_grad
from s2sad.pytrees import structure_of
from s2sad.transforms.frontend.containers import flatten_args


def half_squares(value):
    # down a nest of lists and tuples to its arrays
    if isinstance(value, (list, tuple)):
        return sum([half_squares(v) for v in value])
    return np.sum(value * value * 0.5)


def penalised(layers):
    return half_squares(layers) + np.sum(np.tanh(layers[1][0]))


def test_a_list_takes_its_branch():
    layers = [(np.ones(2), np.ones(1))]
    _, after = lowered(flatten_args, half_squares, np.ones(2), np.ones(1), structures={"value": structure_of(layers, "test", ("value",))})
    assert "isinstance" not in after and "value * value" not in after


def test_gradient_through_the_nest(jit):
    layers = [(np.array([[0.3, -1.0], [0.2, 0.5]]), np.array([0.1, 0.4])),
              (np.array([[1.5], [-0.7]]), np.array([0.9]))]
    check_tree_grad(penalised, [layers], jit=jit)
