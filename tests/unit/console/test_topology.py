"""The stack picture's layout: layers left to right, states coloured, large stacks fast."""

from __future__ import annotations

import time

from hearth.console import topology


def _view(count, chain=False):
    nodes = [{"name": f"r{i:04d}", "type": "OS::Heat::None", "state": "CREATE_COMPLETE"}
             for i in range(count)]
    edges = ([{"source": f"r{i:04d}", "target": f"r{i - 1:04d}", "kinds": ["depends_on"]}
              for i in range(1, count)] if chain else [])
    return {"nodes": nodes, "edges": edges}


def test_a_resource_stands_right_of_what_it_needs():
    picture = topology.layout({
        "nodes": [{"name": "net", "type": "T", "state": "CREATE_COMPLETE"},
                  {"name": "server", "type": "T", "state": "CREATE_IN_PROGRESS"},
                  {"name": "ip", "type": "T", "state": "INIT_COMPLETE"}],
        "edges": [{"source": "server", "target": "net", "kinds": ["get_resource"]},
                  {"source": "ip", "target": "server", "kinds": ["get_attr"]}]})
    by_name = {node.name: node for node in picture.nodes}
    assert by_name["net"].x < by_name["server"].x < by_name["ip"].x
    assert [node.css for node in picture.nodes] == ["init", "complete", "progress"]
    assert {edge.source: edge.kinds for edge in picture.edges} == {
        "server": ["get_resource"], "ip": ["get_attr"]}


def test_a_nested_stack_is_one_node_counting_its_resources_by_state():
    picture = topology.layout({
        "nodes": [{"name": "group", "type": "OS::Heat::ResourceGroup",
                   "state": "CREATE_IN_PROGRESS"}],
        "edges": [],
        "clusters": {"group": {"nodes": [
            {"name": "0", "type": "T", "state": "CREATE_COMPLETE"},
            {"name": "1", "type": "T", "state": "CREATE_FAILED"},
            {"name": "2", "type": "T", "state": "CREATE_COMPLETE"}], "edges": []}}})
    [group] = picture.nodes
    assert group.is_group and group.counts == {"complete": 2, "failed": 1}


def test_a_thousand_resources_lay_out_in_well_under_a_second():
    for chain in (False, True):
        started = time.perf_counter()
        picture = topology.layout(_view(1000, chain=chain))
        assert time.perf_counter() - started < 0.5
        assert len(picture.nodes) == 1000
        # a tall column wraps: the picture stays within a few thousand pixels high
        assert picture.height <= topology.MAX_ROWS * (topology.NODE_HEIGHT + topology.ROW_GAP) + 50
