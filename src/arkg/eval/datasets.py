"""Open an evaluation data set, whatever its published format, by looking at the file.

| file | format | adapter |
|---|---|---|
| `.json`, a list of entries with `KG Triples` | CoLoTa / CR-LT-KGQA (questions or claims) | arkg.eval.colota |
| `.jsonl` (or one object in `.json`) with `question`, `a_entity`, `graph` | ARK-V1 per-question graphs | arkg.eval.arkv1 |
| `.jsonl` with `question`, `answer_type`, `program` | arkg geography questions | arkg.eval.geo |
"""

from __future__ import annotations

import json
from pathlib import Path

from arkg.errors import LoadError
from arkg.eval.arkv1 import is_arkv1_entry, load_arkv1
from arkg.eval.colota import load_dataset
from arkg.eval.dataset import Dataset
from arkg.eval.geo import load_geo
from arkg.graph.loaders._common import read_json, utf8_lines

FORMATS = "a CoLoTa .json file, an ARK-V1 per-question .jsonl file, or an arkg geography .jsonl file"


def open_dataset(path: str | Path) -> Dataset:
    path = Path(path)
    if not path.is_file():
        raise LoadError(path, None, "no such file" if not path.exists() else "not a file")
    if path.suffix.lower() == ".json":
        document = read_json(path, item="entry")
        return load_arkv1(path) if is_arkv1_entry(document) else load_dataset(path)
    first = _first_object(path)
    if is_arkv1_entry(first):
        return load_arkv1(path)
    if isinstance(first, dict) and {"question", "answer_type", "program"} <= first.keys():
        return load_geo(path)
    raise LoadError(path, "line 1", f"not a data set arkg knows; expected {FORMATS}")


def _first_object(path: Path) -> object:
    for number, text in utf8_lines(path):
        if text.strip():
            try:
                return json.loads(text)
            except json.JSONDecodeError as error:
                raise LoadError(path, f"line {number}", f"malformed JSON: {error.msg}") from None
    raise LoadError(path, None, "the file is empty")
