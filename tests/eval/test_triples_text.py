"""The KG Triples parser on the tricky strings quoted in the CoLoTa README and found in the file."""

from __future__ import annotations

import pytest

from arkg.eval.triples_text import ItemError, Resolver, split_items
from arkg.graph.model import Triple


def parse(*fields: str, entities: tuple[str, ...] = ()) -> list[list[Triple]]:
    """Parse several fields as one file (the resolver learns from all of them); triples per field."""
    splits = [split_items(text) for text in fields]
    for split in splits:
        assert split.errors == []
    resolver = Resolver((item for split in splits for item in split.items), entities)
    return [[t for item in split.items for t in resolver.resolve(item)] for split in splits]


def test_plain_numbered_items() -> None:
    [triples] = parse("1- (Yui Yuigahama, has pet, Sablé), 2- (Sablé, animal breed, dachshund)")
    assert triples == [Triple("Yui Yuigahama", "has pet", "Sablé"), Triple("Sablé", "animal breed", "dachshund")]


def test_thousands_separators_stay_in_the_tail() -> None:
    [triples] = parse("1- (Horsens, population, 59,449), 2- (X, cost, 200,000,000 United States dollar)")
    assert [t.tail for t in triples] == ["59,449", "200,000,000 United States dollar"]


def test_relation_labels_with_commas_are_recognised_when_they_recur() -> None:
    first, second = parse(
        "1- (Jordan Motor Car Company, dissolved, abolished or demolished date, April 1931)",
        "1- (Juan Cuda, languages spoken, written or signed, Italian), "
        "2- (Czechoslovakia, dissolved, abolished or demolished date, 31 December 1992), "
        "3- (Arimasa Mori, languages spoken, written or signed, French)",
    )
    assert first == [Triple("Jordan Motor Car Company", "dissolved, abolished or demolished date", "April 1931")]
    assert [t.relation for t in second] == [
        "languages spoken, written or signed",
        "dissolved, abolished or demolished date",
        "languages spoken, written or signed",
    ]
    assert [t.tail for t in second] == ["Italian", "31 December 1992", "French"]


def test_tails_with_commas_descriptions_and_coordinates() -> None:
    [triples] = parse(
        "1- (Vaughan, description, city in Ontario, Canada), 2- (Jamjuree Art Gallery, description, gallery), "
        "3- (Lowshan, Coordinate location, 36°37'14\"N, 49°30'38\"E), "
        "4- (Gubadly, Coordinate location, 39°20'38\"N, 46°34'47\"E)"
    )
    assert triples[0] == Triple("Vaughan", "description", "city in Ontario, Canada")
    assert triples[2] == Triple("Lowshan", "Coordinate location", "36°37'14\"N, 49°30'38\"E")


def test_braced_qualifiers_become_props_and_repeated_keys_start_new_statements() -> None:
    [triples] = parse(
        "1- (Ilary Blast, spouse, Francesco Totti {start time, 2005}{end time, 2022}), "
        "2- (Ulf Kristersson, position held, Prime Minister of Sweden, {replaces, Magdalena Andersson}), "
        "3- (L, position held, PM {start time, 1983}{end time, 1986}{start time, 1990}{end time, 1991}"
    )
    assert triples[0] == Triple("Ilary Blast", "spouse", "Francesco Totti", {"start time": "2005", "end time": "2022"})
    assert triples[1] == Triple("Ulf Kristersson", "position held", "Prime Minister of Sweden", {"replaces": "Magdalena Andersson"})
    assert [t.props for t in triples[2:]] == [
        {"start time": "1983", "end time": "1986"},
        {"start time": "1990", "end time": "1991"},
    ]


def test_parenthesised_qualifiers_but_not_parenthesised_names() -> None:
    [triples] = parse(
        "1- (Charles Robberts Swart, position held, State President of South Africa (start time, 31 May 1961)), "
        "2- (Pinar Abay, position held, chief executive officer (of, ING Bank N.V.)), "
        "3- (Yoshimitsu, name in native language, 吉光 (Japanese)), "
        "4- (Bojana Atanasovska, work period (start), 2002)"
    )
    assert triples[0].tail == "State President of South Africa"
    assert triples[0].props == {"start time": "31 May 1961"}
    assert triples[1].props == {"of": "ING Bank N.V."}
    assert triples[2] == Triple("Yoshimitsu", "name in native language", "吉光 (Japanese)")
    assert triples[3] == Triple("Bojana Atanasovska", "work period (start)", "2002")


def test_qualifier_without_comma_uses_a_key_seen_elsewhere() -> None:
    [triples] = parse(
        "1- (E, candidate, Yoon {votes received, 16394815}{represents People Power Party}), "
        "2- (E, candidate, Kim {votes received, 8317}{represents, New Liberal Democratic Union})"
    )
    assert triples[0].props == {"votes received": "16394815", "represents": "People Power Party"}


def test_unknown_unkeyed_qualifier_is_an_item_error() -> None:
    [item] = split_items("1- (a, r, b {mystery text})").items
    with pytest.raises(ItemError, match="mystery text"):
        Resolver([item], []).resolve(item)


def test_missing_and_doubled_parentheses() -> None:
    [triples] = parse(
        "1- (2008 election, candidate, Barack Obama {votes received, 69498516}, "
        "2-(2008 election, candidate, John McCain {votes received, 59948323}), "
        "4- ((Bozorg Alavi, date of death, 18 February 1997), 5- (Pippa Middleton, child, Rose), "
    )
    assert [(t.head, t.tail) for t in triples] == [
        ("2008 election", "Barack Obama"),
        ("2008 election", "John McCain"),
        ("Bozorg Alavi", "18 February 1997"),
        ("Pippa Middleton", "Rose"),
    ]
    assert triples[0].props == {"votes received": "69498516"}


def test_two_items_sharing_one_numbering_and_items_without_numbers() -> None:
    shared, unnumbered = parse(
        "1- (Chandra, religion, Buddhism), 2- (Diwan Abatur, named after, Abatur), (Abatur, part of, Mandaeism)",
        "(Dome of Soltaniyeh, height, 49 metre), (Urmia Lake, vertical depth, 16 metre)",
    )
    assert shared[1:] == [Triple("Diwan Abatur", "named after", "Abatur"), Triple("Abatur", "part of", "Mandaeism")]
    assert unnumbered == [Triple("Dome of Soltaniyeh", "height", "49 metre"), Triple("Urmia Lake", "vertical depth", "16 metre")]


def test_separator_without_space_and_dashes_inside_names() -> None:
    [triples] = parse("1- (Naser al-Din Shah Qajar, spouse,Khazan al-Doulah), 2- (Urmila Kanetkar- Kothare, spouse, Adinath)")
    assert triples == [
        Triple("Naser al-Din Shah Qajar", "spouse", "Khazan al-Doulah"),
        Triple("Urmila Kanetkar- Kothare", "spouse", "Adinath"),
    ]


def test_known_entity_decides_a_head_with_a_comma() -> None:
    [triples] = parse("1- (Washington, D.C., country, United States)", entities=("Washington, D.C.",))
    assert triples == [Triple("Washington, D.C.", "country", "United States")]


def test_item_with_two_parts_is_reported() -> None:
    split = split_items("1- (Mostafa Salimi, country of citizenship, Iran), 2- (sholezard, part of Iranian cuisine)")
    assert len(split.items) == 1
    assert split.errors == ["item (sholezard, part of Iranian cuisine): expected (head, relation, tail), found 2 comma-separated part(s)"]
