"""Every loader with good and bad files: what it reads, and the error it gives (file, place, reason)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.errors import LoadError
from arkg.graph import Triple, read_triples
from arkg.graph.loaders import READERS, detect_format

TEN_MB = 10 * 1024 * 1024


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def load_error(path: Path, format: str | None = None) -> LoadError:
    with pytest.raises(LoadError) as caught:
        list(read_triples(path, format))
    assert caught.value.path == str(path)
    return caught.value


# -- good files -------------------------------------------------------------------------------


def test_ark_json_bare_list_keeps_props_beside_the_relation(tmp_path: Path) -> None:
    records = [
        ["Sablé", "dachshund", {"relation": "animal breed"}],
        ["Sablé", "oregairu:Sablé", {"relation": "Fandom article ID", "MediaWiki page ID": "14567", "rank": 2}],
    ]
    path = write(tmp_path, "kg.json", json.dumps(records))
    assert list(read_triples(path)) == [
        Triple("Sablé", "animal breed", "dachshund"),
        Triple("Sablé", "Fandom article ID", "oregairu:Sablé", {"MediaWiki page ID": "14567", "rank": 2}),
    ]


def test_ark_json_graph_under_a_key_beside_the_question(tmp_path: Path) -> None:
    document = {
        "question": "Is Sablé a dog?",
        "a_entity": True,
        "graph": [["Sablé", "fictional dog", {"relation": "instance of"}]],
    }
    path = write(tmp_path, "example.json", json.dumps(document))
    assert list(read_triples(path)) == [Triple("Sablé", "instance of", "fictional dog")]


def test_ark_json_reads_the_published_example(colota_dir: Path) -> None:
    triples = list(read_triples(colota_dir / "ark-v1-example.json"))
    assert len(triples) == 32
    assert Triple("Yui Yuigahama", "has pet", "Sablé") in triples


def test_jsonl_with_and_without_props_skips_blank_lines(tmp_path: Path) -> None:
    lines = [
        {
            "head": "Marie Curie",
            "relation": "spouse",
            "tail": "Pierre Curie",
            "props": {"start time": 1895, "end time": 1906},
        },
        {"head": "Marie Curie", "relation": "born in", "tail": "Warsaw"},
        {"head": "Warsaw", "relation": "country", "tail": "Poland", "props": None},
    ]
    path = write(
        tmp_path, "kg.jsonl", "\n".join(json.dumps(line) for line in lines[:2]) + "\n\n" + json.dumps(lines[2]) + "\n"
    )
    assert list(read_triples(path)) == [
        Triple("Marie Curie", "spouse", "Pierre Curie", {"start time": 1895, "end time": 1906}),
        Triple("Marie Curie", "born in", "Warsaw"),
        Triple("Warsaw", "country", "Poland"),
    ]


def test_csv_extra_columns_become_props_and_empty_cells_are_left_out(tmp_path: Path) -> None:
    content = (
        "head,relation,tail,start time,source\n"
        "Marie Curie,spouse,Pierre Curie,1895,\n"
        '"Paris, France",population,"2,100,000",,census\n'
    )
    assert list(read_triples(write(tmp_path, "kg.csv", content))) == [
        Triple("Marie Curie", "spouse", "Pierre Curie", {"start time": "1895"}),
        Triple("Paris, France", "population", "2,100,000", {"source": "census"}),
    ]


def test_tsv_columns_in_any_order_and_quotes_are_plain_text(tmp_path: Path) -> None:
    content = 'tail\thead\trelation\tnote\nPierre Curie\tMarie Curie\tspouse\t"married" in 1895\n'
    assert list(read_triples(write(tmp_path, "kg.tsv", content))) == [
        Triple("Marie Curie", "spouse", "Pierre Curie", {"note": '"married" in 1895'}),
    ]


RDF_TURTLE = """@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Q1 rdfs:label "Marie Curie"@en , "Maria Skłodowska"@pl ;
      ex:spouse ex:Q2 ;
      ex:date_of_birth "1867-11-07" .
ex:spouse rdfs:label "spouse" .
ex:Q2 ex:place_of_birth ex:Paris .
"""


def test_turtle_names_nodes_by_label_or_local_name_and_skips_label_triples(tmp_path: Path) -> None:
    triples = list(read_triples(write(tmp_path, "kg.ttl", RDF_TURTLE)))
    assert all(triple.props == {} for triple in triples)
    assert sorted((t.head, t.relation, t.tail) for t in triples) == [
        ("Marie Curie", "date of birth", "1867-11-07"),
        ("Marie Curie", "spouse", "Q2"),
        ("Q2", "place of birth", "Paris"),
    ]


def test_ntriples_names_nodes_by_label(tmp_path: Path) -> None:
    content = (
        '<http://example.org/Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Marie Curie" .\n'
        "<http://example.org/Q1> <http://example.org/prop#child> <http://example.org/Ir%C3%A8ne> .\n"
        '<http://example.org/Q1> <http://example.org/prop#born> "1867"^^<http://www.w3.org/2001/XMLSchema#gYear> .\n'
    )
    triples = {(t.head, t.relation, t.tail) for t in read_triples(write(tmp_path, "kg.nt", content))}
    assert triples == {("Marie Curie", "child", "Irène"), ("Marie Curie", "born", "1867")}


def test_format_comes_from_the_extension_unless_given(tmp_path: Path) -> None:
    assert detect_format("a.JSONL") == "jsonl"
    assert detect_format("a.ndjson") == "jsonl"
    path = write(tmp_path, "kg.txt", '{"head": "a", "relation": "r", "tail": "b"}\n')
    assert list(read_triples(path, "jsonl")) == [Triple("a", "r", "b")]
    assert "cannot tell the format" in load_error(path).reason
    assert "unknown format 'xml'" in load_error(path, "xml").reason


def test_a_10_mb_single_line_loads_in_jsonl_and_ark_json(tmp_path: Path) -> None:
    long_tail = "x" * TEN_MB
    jsonl = write(tmp_path, "big.jsonl", json.dumps({"head": "a", "relation": "r", "tail": long_tail}) + "\n")
    ark = write(tmp_path, "big.json", json.dumps([["a", long_tail, {"relation": "r"}]]))
    for path in (jsonl, ark):
        [triple] = read_triples(path)
        assert len(triple.tail) == TEN_MB


# -- bad files --------------------------------------------------------------------------------

EMPTY_CONTENT = {
    "ark": "[]",
    "jsonl": "\n\n",
    "csv": "",
    "tsv": "head\trelation\ttail\n",
    "nt": "",
    "ttl": "@prefix ex: <http://e/> .",
}
EXTENSION = {"ark": "json", "jsonl": "jsonl", "csv": "csv", "tsv": "tsv", "nt": "nt", "ttl": "ttl"}


@pytest.mark.parametrize("format", sorted(READERS))
def test_a_file_without_triples_is_an_error(tmp_path: Path, format: str) -> None:
    error = load_error(write(tmp_path, f"empty.{EXTENSION[format]}", EMPTY_CONTENT[format]))
    assert "no triples" in error.reason


@pytest.mark.parametrize("format", sorted(READERS))
def test_a_zero_byte_file_is_an_error(tmp_path: Path, format: str) -> None:
    error = load_error(write(tmp_path, f"empty.{EXTENSION[format]}", b""))
    assert error.reason == "no triples found in the file"


GOOD_FIRST_LINE = {
    "ark": '[["a", "b", {"relation": "r"}],\n',
    "jsonl": '{"head": "a", "relation": "r", "tail": "b"}\n',
    "csv": "head,relation,tail\n",
    "tsv": "head\trelation\ttail\n",
    "nt": "<http://e/a> <http://e/r> <http://e/b> .\n",
    "ttl": "<http://e/a> <http://e/r> <http://e/b> .\n",
}


@pytest.mark.parametrize("format", sorted(READERS))
def test_non_utf8_bytes_are_reported_with_their_line(tmp_path: Path, format: str) -> None:
    second_line = b'["caf\xe9", "b", {"relation": "r"}]]\n' if format == "ark" else b"caf\xe9 latin-1 text\n"
    error = load_error(write(tmp_path, f"latin1.{EXTENSION[format]}", GOOD_FIRST_LINE[format].encode() + second_line))
    assert error.where == "line 2"
    assert "not valid UTF-8" in error.reason and "0xe9" in error.reason


def test_missing_file(tmp_path: Path) -> None:
    assert load_error(tmp_path / "nope.jsonl").reason == "no such file"


@pytest.mark.parametrize(
    ("content", "where", "reason"),
    [
        ('[["a", "b", {"relation": "r"}],\n ["c" "d"]]', "line 2, column 7", "malformed JSON"),
        ('{"question": "q"}', None, 'under "graph"'),
        ('[["a", "b", {"relation": "r"}], ["a", "b"]]', "record 2", "expected [head, tail"),
        ('[["a", "b", {"rel": "r"}]]', "record 1", '"relation" key'),
        ('[[1, "b", {"relation": "r"}]]', "record 1", "head must be a string, not a number"),
        ('[["a", "b", {"relation": null}]]', "record 1", "relation must be a string, not null"),
        ('[["a", "", {"relation": "r"}]]', "record 1", "tail is empty"),
        ('[["a", "b", {"relation": "r", "when": {"year": 1}}]]', "record 1", "property 'when' must be a string"),
    ],
)
def test_bad_ark_json(tmp_path: Path, content: str, where: str | None, reason: str) -> None:
    error = load_error(write(tmp_path, "bad.json", content))
    assert (error.where, reason in error.reason) == (where, True), error


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"head": "a", "relation": "r", "tail": "b"', "malformed JSON at column"),
        ('["a", "r", "b"]', "expected an object"),
        ('{"head": "a", "relation": "r"}', "missing key(s) tail"),
        ('{"head": "a", "relation": 7, "tail": "b"}', "relation must be a string, not a number"),
        ('{"head": "a", "relation": "r", "tail": "b", "prop": {}}', "unexpected key(s) 'prop'"),
        ('{"head": "a", "relation": "r", "tail": "b", "props": ["x"]}', "props must be an object, not a list"),
        ('{"head": "a", "relation": "r", "tail": "b", "props": {"x": [1]}}', "property 'x' must be"),
    ],
)
def test_bad_jsonl_names_the_line(tmp_path: Path, line: str, reason: str) -> None:
    error = load_error(write(tmp_path, "bad.jsonl", GOOD_FIRST_LINE["jsonl"] + "\n" + line + "\n"))
    assert error.where == "line 3"
    assert reason in error.reason


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"head": " ", "relation": "r", "tail": "b"}', "head is empty"),
        ('{"head": "a", "relation": "r", "tail": "b", "props": {"x": 1}, "props": {"x": 2}}', "duplicate key 'props'"),
        ('{"head": "a", "relation": "r", "tail": "\\ud800"}', "half of a UTF-16 surrogate pair"),
    ],
)
def test_a_bad_line_deep_in_a_large_jsonl_file_is_named(tmp_path: Path, line: str, reason: str) -> None:
    """Thousands of good lines are read a batch at a time; the batch with the bad line is read again line
    by line, so the error names that line, blank lines counted."""
    good = [json.dumps({"head": f"h{i}", "relation": "r", "tail": f"t{i}"}) for i in range(2_400)]
    lines = [*good[:1_000], "", *good[1_000:2_300], line, *good[2_300:]]
    path = write(tmp_path, "big.jsonl", "\n".join(lines) + "\n")
    error = load_error(path)
    assert (error.where, reason in error.reason) == ("line 2302", True)
    assert len(list(read_triples(write(tmp_path, "good.jsonl", "\n".join([*lines[:2301], *lines[2302:]]))))) == 2_400


@pytest.mark.parametrize(
    ("content", "where", "reason"),
    [
        ("head,rel,tail\na,r,b\n", "line 1", "missing: relation"),
        ("head,relation,tail,head\na,r,b,c\n", "line 1", "duplicate column(s) in the header: 'head'"),
        ("head,relation,tail\na,r,b\na,r\n", "line 3", "expected 3 fields as in the header, found 2"),
        ("head,relation,tail\na,r,b\n ,r,b\n", "line 3", "head is empty"),
        ('head,relation,tail\na,r,"b\n', "line 2", "malformed CSV"),
    ],
)
def test_bad_csv_names_the_line(tmp_path: Path, content: str, where: str, reason: str) -> None:
    error = load_error(write(tmp_path, "bad.csv", content))
    assert (error.where, reason in error.reason) == (where, True), error


def test_a_10_mb_csv_field_fails_cleanly(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, "big.csv", "head,relation,tail\na,r," + "x" * TEN_MB + "\n"))
    assert error.where == "line 2"
    assert "field larger than field limit" in error.reason


def test_bad_tsv_names_the_line(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, "bad.tsv", "head\trelation\ttail\na\tr\tb\tc\n"))
    assert (error.where, error.reason) == ("line 2", "expected 3 fields as in the header, found 4")


def test_bad_ntriples_names_the_line(tmp_path: Path) -> None:
    content = GOOD_FIRST_LINE["nt"] + '<http://e/a> <http://e/r> "unterminated .\n'
    error = load_error(write(tmp_path, "bad.nt", content))
    assert error.where == "line 2"
    assert "malformed N-Triples" in error.reason


def test_bad_turtle_names_the_line(tmp_path: Path) -> None:
    content = "@prefix ex: <http://e/> .\nex:a ex:r ex:b .\nex:a ex:r ;\n"
    error = load_error(write(tmp_path, "bad.ttl", content))
    assert error.where == "line 3"
    assert "malformed Turtle" in error.reason and "objectList expected" in error.reason
