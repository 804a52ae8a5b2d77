from snippets.timing import compare, interleaved, spread


def test_rounds_are_interleaved():
    order = []
    times = interleaved({"a": "a", "b": "b"}, lambda name: order.append(name) or len(order), rounds=2)
    assert order == ["a", "b", "a", "b"]
    assert times == {"a": [1, 3], "b": [2, 4]}


def test_spread_is_relative_to_the_median():
    assert spread([9.0, 10.0, 11.0]) == 0.2


def test_a_gap_inside_the_spread_is_a_tie():
    result = compare({"ours": [10.0, 10.5, 11.0], "theirs": [10.3, 10.4, 10.5]}, "ours", "theirs")
    assert result.tie and "tie" in str(result)


def test_a_gap_below_the_floor_is_a_tie_even_without_spread():
    assert compare({"a": [100.0] * 3, "b": [100.9] * 3}, "a", "b").tie


def test_a_gap_beyond_the_margin_names_the_faster():
    result = compare({"a": [20.0, 20.1, 20.2], "b": [10.0, 10.1, 10.2]}, "a", "b")
    assert not result.tie
    assert (result.faster, result.slower) == ("b", "a")
    assert str(result).startswith("b is 9")
