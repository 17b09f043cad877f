"""No prompt and no synthesis template carries knowledge of an evaluation item.

A prompt that names CoLoTa's entities (or the facts of its questions) helps exactly those questions
and makes a score on them meaningless. The check reads every prompt file and the string literals of
the synthesis templates (docstrings and comments may cite examples) and looks for CoLoTa's entity
names and the proper nouns of its questions; an ordinal such as "12th" is read as CoLoTa writes it
("12.").
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import arkg

PACKAGE = Path(arkg.__file__).parent
TRIPLE = re.compile(r"\(([^,()]+), ([^,()]+), ([^()]+)\)")
# Capitalised words inside a question (not its first word), such as a place or a person ("New York").
PROPER_NOUN = re.compile(r"(?<=[\w,] )[A-Z][\w'-]+(?: [A-Z][\w'-]+)*")
ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
TEMPLATE_MODULES = ("synth/wording.py", "agents/teaching.py", "agents/*/teacher.py", "datasets/geo/*templates.py")


def item_words(colota: list[dict]) -> set[str]:
    """Entity names of the items' graphs and the proper nouns of their questions; a capitalised word
    that the questions also use in lower case ("The", "Which") is general English."""
    names: set[str] = set()
    lower_words = {word for item in colota for word in re.findall(r"\b[a-z][\w'-]*", item["query"])}
    for item in colota:
        names.update(item.get("KG Entities", {}))
        for head, _, tail in TRIPLE.findall(item["KG Triples"]):
            names.update((head.strip(), tail.strip()))
        names.update(word for word in PROPER_NOUN.findall(item["query"]) if word.lower() not in lower_words)
    return {name for name in names if len(name) > 2}


def literal_text(path: Path) -> str:
    """The string literals of a module, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr)
    }  # fmt: skip
    return "\n".join(
        node.value for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    )  # fmt: skip


def texts_to_check() -> list[tuple[str, str]]:
    prompts = [(str(path.relative_to(PACKAGE)), path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("prompts/*.yaml"))]
    modules = [path for pattern in TEMPLATE_MODULES for path in sorted(PACKAGE.glob(pattern))]
    return prompts + [(str(path.relative_to(PACKAGE)), literal_text(path)) for path in modules]


def mentions(text: str, words: set[str]) -> list[str]:
    text = ORDINAL.sub(r"\1.", text)
    return sorted(word for word in words if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text))


@pytest.fixture(scope="module")
def words(colota_dir: Path) -> set[str]:
    return item_words(json.loads((colota_dir / "CR-LT-QA.json").read_text(encoding="utf-8")))


def test_the_check_sees_every_prompt_and_template_and_would_catch_an_item_entity(words: set[str]) -> None:
    checked = dict(texts_to_check())
    assert "agents/ark/prompts/answer.yaml" in checked and "agents/kg_agent/prompts/planner.yaml" in checked
    assert "agents/ark/teacher.py" in checked and "agents/teaching.py" in checked
    assert mentions("a city name such as Florence, or the 12th century", words) == ["12. century", "Florence"]


@pytest.mark.parametrize("name", [name for name, _ in texts_to_check()])
def test_no_prompt_or_template_names_a_colota_item(name: str, words: set[str]) -> None:
    assert mentions(dict(texts_to_check())[name], words) == []
