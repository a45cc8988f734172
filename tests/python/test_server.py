"""`urchin server` driven by Futhark's own client, the `futhark-server`
package: entry points and their types, calls with NumPy arrays, a
store/restore round trip, an opaque value passed from one call to
another, and a failing call after which the server still answers.

Run by tests/it/clients.rs (`cargo test`), which sets URCHIN to the
built binary.
"""

import os
import pathlib
import tempfile

import numpy as np
import pytest
from futhark_server import Failure, Server

URCHIN = os.environ.get("URCHIN", "urchin")
KMEANS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "kmeans.fut"

POINTS = np.array([[0, 0], [1, 0], [0, 1], [10, 10], [11, 10]], dtype=np.float64)
CENTERS = np.array([[0.5, 0.5], [10, 9]], dtype=np.float64)


@pytest.fixture
def server():
    with Server(URCHIN, "server", str(KMEANS)) as s:
        yield s


def test_entry_points_and_types(server):
    assert server.cmd_entry_points() == ["assign", "kmeans_cost", "kmeans_grad", "main"]
    assert server.cmd_inputs("kmeans_grad") == ["[][]f64", "[][]f64"]
    assert server.cmd_output("kmeans_cost") == ["f64"]
    assert server.cmd_output("main") == ["([][]f64, f64)"]
    assert server.cmd_inputs("assign") == ["([][]f64, f64)", "[][]f64"]
    assert "([][]f64, f64)" in server.cmd_types()
    assert server.cmd("kind", '"([][]f64, f64)"') == ["record"]
    assert server.cmd_fields('"([][]f64, f64)"') == ["0 [][]f64", "1 f64"]
    assert server.cmd_tuning_params("main") == []


def test_calls_with_numpy_arrays(server):
    server.put_value("points", POINTS)
    server.put_value("centers", CENTERS)
    server.cmd_call("kmeans_cost", "cost", "points", "centers")
    assert server.get_value("cost") == 4.5
    server.cmd_call("kmeans_grad", "grad", "points", "centers")
    np.testing.assert_array_equal(server.get_value("grad"), [[1.0, 1.0], [-2.0, -4.0]])
    assert server.cmd("shape", "grad") == ["2", "2"]


def test_store_and_restore_round_trip(server):
    server.put_value("points", POINTS)
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "values.bin")
        server.cmd_store(f, "points")
        server.cmd_restore(f, ("again", "[][]f64"))
    np.testing.assert_array_equal(server.get_value("again"), POINTS)
    data = server.get_value_bytes("points")
    # The client passes its second argument on as one (name, type) pair.
    server.put_value_bytes(data, ("bytes", "[][]f64"))
    assert server.get_value_bytes("bytes") == data
    server.cmd_rename("bytes", "renamed")
    server.cmd_free("renamed", "again")
    with pytest.raises(Failure):
        server.cmd_free("renamed")


def test_an_opaque_value_between_two_calls(server):
    server.put_value("points", POINTS)
    server.put_value("centers", CENTERS)
    # `main` returns a tuple: an opaque value for the client.
    server.cmd_call("main", "fit", "points", "centers")
    assert server.cmd("type", "fit") == ["([][]f64, f64)"]
    server.cmd_call("assign", "labels", "fit", "points")
    np.testing.assert_array_equal(server.get_value("labels"), [0, 0, 0, 1, 1])
    server.cmd_project("cost", "fit", "1")
    assert server.get_value("cost") == pytest.approx(1.8333333333333333)
    server.cmd_project("fitted", "fit", "0")
    np.testing.assert_allclose(
        server.get_value("fitted"), [[1 / 3, 1 / 3], [10.5, 10.0]]
    )


def test_a_failing_call_and_the_server_goes_on(server):
    server.put_value("points", POINTS)
    # Points of 3 coordinates against centers of 2: a size mismatch.
    server.put_value("centers", np.zeros((2, 3)))
    with pytest.raises(Failure):
        server.cmd_call("kmeans_cost", "cost", "points", "centers")
    with pytest.raises(Failure):
        server.cmd_call("no_such_entry", "out", "points")
    with pytest.raises(Failure):
        server.cmd("frobnicate")
    assert server.cmd_entry_points()[0] == "assign"
    server.put_value("centers2", CENTERS)
    server.cmd_call("kmeans_cost", "cost", "points", "centers2")
    assert server.get_value("cost") == 4.5


def test_failure_is_framed_as_the_protocol_says():
    import subprocess

    out = subprocess.run(
        [URCHIN, "server", str(KMEANS)],
        input="call kmeans_cost r nope nope\nentry_points\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[:2] == ["%%% OK", "%%% FAILURE"]
    assert out[3:] == ["%%% OK", "assign", "kmeans_cost", "kmeans_grad", "main", "%%% OK"]
