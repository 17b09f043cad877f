"""snap_names: an open answer's misspelt names written as the KG writes them, and nothing else changed."""

from __future__ import annotations

from arkg.graph.matching import snap_names

SPECIES = ["Tirsa Trus", "Velora Stubibrul", "Quenta Has", "Velora Rafukeil", "R. Sand"]


def test_a_misspelt_name_in_a_list_is_replaced_and_the_list_is_written_with_semicolons():
    answer, replaced = snap_names("Tirsa Trus, Velora Stubibrul, Quenta Has, Velora Rafieil", SPECIES)
    assert answer == "Tirsa Trus; Velora Stubibrul; Quenta Has; Velora Rafukeil"
    assert replaced == [("Velora Rafieil", "Velora Rafukeil")]


def test_names_written_right_or_only_in_another_case_are_left_as_written():
    assert snap_names("Tirsa Trus, Quenta Has", SPECIES) == ("Tirsa Trus, Quenta Has", [])
    assert snap_names("tirsa trus", SPECIES) == ("tirsa trus", [])


def test_numbers_dates_and_unknown_names_are_never_replaced():
    assert snap_names("1822", ["1823"]) == ("1822", [])
    assert snap_names("3 September 1944", ["3 September 1945"]) == ("3 September 1944", [])
    assert snap_names("Paris", SPECIES) == ("Paris", [])
    # One name of the list is unknown: the answer stays as the model wrote it.
    assert snap_names("Velora Rafieil, Paris", SPECIES) == ("Velora Rafieil, Paris", [])


def test_a_name_close_to_two_known_names_is_ambiguous_and_kept():
    assert snap_names("Velora Rafkeil", ["Velora Rafukeil", "Velora Rafokeil"]) == ("Velora Rafkeil", [])


def test_a_name_holding_a_comma_is_matched_whole():
    answer, replaced = snap_names("Tripoli, Lybia", ["Tripoli, Libya", "Abuja"])
    assert (answer, replaced) == ("Tripoli, Libya", [("Tripoli, Lybia", "Tripoli, Libya")])
