"""Hostile KG files: each ends in one LoadError naming file, place and reason, and the store is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.errors import LoadError
from arkg.graph import SQLiteGraph, Triple

GOOD_LINE = '{"head": "a", "relation": "r", "tail": "b"}\n'
DEEP = "[" * 5000 + "]" * 5000
HUGE = "9" * 5000


def load_into_a_store(tmp_path: Path, name: str, content: str) -> LoadError:
    """Load the file into a store that already holds a triple; the store must be unchanged after."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with SQLiteGraph(tmp_path / "kg.db") as store:
        store.add_triples([Triple("Marie Curie", "spouse", "Pierre Curie", {"start time": 1895})])
        before = (list(store.iter_triples()), store.stats())
        with pytest.raises(LoadError) as caught:
            store.load(path)
        assert (list(store.iter_triples()), store.stats()) == before
        assert not store.has_loaded(path)
    assert caught.value.path == str(path)
    return caught.value


@pytest.mark.parametrize(
    ("name", "content", "where", "reason"),
    [
        ("deep.json", DEEP, "record 1 (line 1)", "nested too deeply"),
        ("deep.json", '{"question": "q",\n "graph": [["a", "b", {"relation": "r"}],\n' + DEEP + "]}", "record 2 (line 3)", "nested too deeply"),
        ("deep.jsonl", GOOD_LINE + '{"head": "a", "relation": "r", "tail": ' + DEEP + "}\n", "line 2", "nested too deeply"),
        ("huge.jsonl", GOOD_LINE * 3 + '{"head": "a", "relation": "r", "tail": "b", "props": {"n": ' + HUGE + "}}\n", "line 4", "more than 4,300 digits"),
        ("huge.json", '[["a", "b", {"relation": "r"}],\n ["a", "b", {"relation": "r", "n": ' + HUGE + "}]]", "record 2 (line 2)", "more than 4,300 digits"),
        ("surrogate.jsonl", GOOD_LINE + '{"head": "\\ud800", "relation": "r", "tail": "b"}\n', "line 2", "head holds \\ud800"),
        ("surrogate.jsonl", '{"head": "a", "relation": "r", "tail": "b", "props": {"k\\udfff": 1}}\n', "line 1", "a property name holds \\udfff"),
        ("surrogate.jsonl", '{"head": "a", "relation": "r", "tail": "b", "props": {"k": "\\uDC00x"}}\n', "line 1", "property 'k' holds \\udc00"),
        ("surrogate.json", '[["a", "b", {"relation": "r"}], ["a", "\\udbff", {"relation": "r"}]]', "record 2", "tail holds \\udbff"),
        ("surrogate.nt", "<http://e/a> <http://e/r> <http://e/b> .\n" + '<http://e/a> <http://e/r> "\\ud800" .\n', "line 2", "holds \\ud800"),
        ("surrogate.ttl", '@prefix ex: <http://e/> .\n\nex:a ex:r "x\\uDFFF" .\n', "line 3", "holds \\udfff"),
        ("huge.ttl", "@prefix ex: <http://e/> .\nex:a ex:r " + HUGE + " .\n", "line 2", "more than 4,300 digits"),
    ],
)
def test_hostile_files_give_one_located_error_and_change_nothing(
    tmp_path: Path, name: str, content: str, where: str, reason: str
) -> None:
    """Deep nesting, lone surrogates and huge integers ended in tracebacks."""
    error = load_into_a_store(tmp_path, name, content)
    assert (error.where, reason in error.reason) == (where, True), error


def test_a_valid_surrogate_pair_escape_is_one_character(tmp_path: Path) -> None:
    path = tmp_path / "emoji.jsonl"
    path.write_text('{"head": "\\ud83d\\ude00", "relation": "r", "tail": "b"}\n', encoding="utf-8")
    with SQLiteGraph() as store:
        store.load(path)
        assert store.has_entity("😀")


@pytest.mark.parametrize(
    ("name", "content", "where", "reason"),
    [
        ("dup.jsonl", GOOD_LINE + '{"head": "a", "relation": "r", "tail": "b", "head": "c"}\n', "line 2", "duplicate key 'head'"),
        ("dup.jsonl", '{"head": "a", "relation": "r", "tail": "b", "props": {"t": 1, "t": 2}}\n', "line 1", "duplicate key 't'"),
        ("dup.json", '[["a", "b", {"relation": "r"}],\n ["a", "b", {"relation": "r", "relation": "s"}]]', "record 2 (line 2)", "duplicate key 'relation'"),
        ("dup.json", '{"graph": [], "graph": [["a", "b", {"relation": "r"}]]}', None, "duplicate key 'graph'"),
        ("dup.json", '{"question" : "q",\n "answer": {"a": 1, "a": 2},\n "graph" : [["a", "b", {"relation": "r"}]]}', "line 2", "duplicate key 'a'"),
        ("dup.json", '{"question" : "q", "graph" : [\n["a", "b", {"relation": "r"}],\n ["a", "b", {"relation": "r", "x": 1, "x": 1}]]}', "record 2 (line 3)", "duplicate key 'x'"),
        ("nan.jsonl", '{"head": "a", "relation": "r", "tail": "b", "props": {"x": NaN}}\n', "line 1", "NaN is not a JSON number"),
        ("inf.jsonl", '{"head": "a", "relation": "r", "tail": "b", "props": {"x": -Infinity}}\n', "line 1", "-Infinity is not a JSON number"),
        ("inf.jsonl", '{"head": "a", "relation": "r", "tail": "b", "props": {"x": 1e400}}\n', "line 1", "property 'x' is too large a number"),
        ("nan.json", '[["a", "b", {"relation": "r", "x": Infinity}]]', "record 1 (line 1)", "Infinity is not a JSON number"),
        ("inf.json", '[["a", "b", {"relation": "r", "x": -1e400}]]', "record 1", "property 'x' is too large a number"),
    ],
)
def test_duplicate_keys_and_non_numbers_are_rejected(tmp_path: Path, name: str, content: str, where: str | None, reason: str) -> None:
    """Duplicate keys (the last silently won) and NaN/Infinity were accepted."""
    error = load_into_a_store(tmp_path, name, content)
    assert (error.where, reason in error.reason) == (where, True), error


@pytest.mark.parametrize("colon", ["", ":"], ids=["strings-without-colons", "strings-with-colons"])
def test_a_duplicate_key_deep_in_a_large_file_is_found_on_its_line(tmp_path: Path, colon: str) -> None:
    """The batch reader finds a repeated key by counting colons, wherever strings hold some."""
    lines = [json.dumps({"head": f"h{n}", "relation": f"r{colon}", "tail": f"t{n}"}) + "\n" for n in range(2500)]
    lines[1733] = '{"head": "x", "relation": "r", "tail": "y", "props": {"p": 1, "q": 2, "p": 3}}\n'
    error = load_into_a_store(tmp_path, "big.jsonl", "".join(lines))
    assert (error.where, error.reason) == ("line 1734", "duplicate key 'p' in one object; keep one of them")


@pytest.mark.parametrize(
    "line",
    [
        '{"head" : "a", "head": "b", "relation": ":r", "tail": "c"}',
        '{"head": "a", "head": "b", "relation": "r\\u003a", "tail": "c"}',
        '{"head": "a", "relation": "r", "tail": "c", "props": {"k:": "v:", "k:": "w"}}',
    ],
    ids=["colon-in-a-string", "escaped-colon", "colons-in-props"],
)
def test_colons_in_strings_do_not_hide_a_duplicate_key(tmp_path: Path, line: str) -> None:
    """Colons in strings, plain or escaped, must not balance the missing key's colon."""
    error = load_into_a_store(tmp_path, "dup.jsonl", GOOD_LINE * 5 + line + "\n")
    assert (error.where, "duplicate key" in error.reason) == ("line 6", True), error


def test_read_json_names_the_entry_of_a_list(tmp_path: Path) -> None:
    from arkg.graph.loaders import read_json

    path = tmp_path / "entries.json"
    path.write_text('[{"id": 1},\n\n {"id": 2, "id": 3}]', encoding="utf-8")
    with pytest.raises(LoadError) as caught:
        read_json(path, item="entry")
    assert (caught.value.where, caught.value.reason) == ("entry 2 (line 3)", "duplicate key 'id' in one object; keep one of them")


MEGABYTE = 1_000_000


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("long.nt", "<http://e/a> <http://e/r> " + "x" * MEGABYTE + "\n"),
        ("long.jsonl", '{"head": "a", "relation": "r", "tail": "b", "' + "k" * MEGABYTE + '": 1}\n'),
        ("long.json", '[["a", "b", "' + "x" * MEGABYTE + '"]]'),
        ("long.csv", "head,relation,tail," + "c" * 100_000 + "," + "c" * 100_000 + "\na,r,b,1,2\n"),
        ("long.ttl", '@prefix ex: <http://e/> .\nex:a ex:r "' + "x" * MEGABYTE + "\n"),
    ],
)
def test_an_error_quotes_at_most_a_little_of_a_long_line(tmp_path: Path, name: str, content: str) -> None:
    """The error embedded the whole bad line (a megabyte of message)."""
    error = load_into_a_store(tmp_path, name, content)
    assert len(str(error)) < 400, str(error)[:500]
    assert "more characters" in str(error) or "\n" not in error.reason
