"""Open an evaluation data set, whatever its published format, by looking at the file's content
(never its name). The container (JSON lines, JSON, CSV, parquet) is told by arkg.eval.rows; the
format by the first entry's fields:

| first entry | format | adapter |
|---|---|---|
| a JSON list of objects with `KG Triples` or `query` | CoLoTa / CR-LT-KGQA (questions or claims) | arkg.eval.colota |
| `question`, `graph`, and `answer` or a list `q_entity` | RoG / GCR per-question subgraphs (WebQSP, CWQ) | arkg.eval.rog |
| `question`, `graph`, `a_entity` | ARK-V1 per-question graphs | arkg.eval.arkv1 |
| `question`, `answer_type`, `program` | arkg geography questions | arkg.eval.geo |
| `question` (and `answer` / `answers`, `id`, `entities`) | a hand-written question file | arkg.eval.question_file |
| a text line `question with [entity]<TAB>answer|answer` | MetaQA | arkg.eval.metaqa |
"""

from __future__ import annotations

from pathlib import Path

from arkg.errors import LoadError
from arkg.eval.arkv1 import is_arkv1_entry, load_arkv1
from arkg.eval.colota import TRIPLES_FIELD, load_dataset
from arkg.eval.dataset import Dataset, skip_unaskable
from arkg.eval.geo import load_geo
from arkg.eval.metaqa import is_metaqa_line, load_metaqa
from arkg.eval.question_file import is_question_entry, load_question_file
from arkg.eval.rog import is_rog_row, load_rog
from arkg.eval.rows import PARQUET_MAGIC, first_line, read_entries

FORMATS = (
    "a CoLoTa JSON file, RoG/GCR per-question subgraphs (JSON lines, JSON or parquet), an ARK-V1 per-question "
    "file, arkg geography questions, a MetaQA question file, or questions of your own (JSON lines, JSON or CSV "
    "with a `question` column)"
)


def open_dataset(path: str | Path) -> Dataset:
    """The data set in the file, whatever its format; questions no strategy can be asked are problems
    (too long, or holding a lone surrogate: arkg.eval.dataset.skip_unaskable)."""
    dataset = _open(Path(path))
    skip_unaskable(dataset)
    return dataset


def _open(path: Path) -> Dataset:
    if not path.is_file():
        raise LoadError(path, None, "no such file" if not path.exists() else "not a file")
    if _is_metaqa(path):
        return load_metaqa(path)
    entries = read_entries(path)
    if entries is None:
        raise LoadError(path, "line 1", f"not a data set arkg knows; expected {FORMATS}")
    if not entries.items:  # an empty list: any format's data set of nothing (selecting from it says so)
        return Dataset(path=path, entries=0)
    first = entries.first
    if entries.container == "JSON" and isinstance(first, dict) and ({TRIPLES_FIELD, "query"} & first.keys()):
        return load_dataset(path)
    if is_rog_row(first):
        return load_rog(path, entries)
    if is_arkv1_entry(first):
        return load_arkv1(path, entries)
    if isinstance(first, dict) and {"question", "answer_type", "program"} <= first.keys():
        return load_geo(path)
    if is_question_entry(first):
        return load_question_file(path, entries)
    raise LoadError(path, entries.items[0].where, f"not a data set arkg knows; expected {FORMATS}")


def _is_metaqa(path: Path) -> bool:
    """Whether the first non-blank line is a MetaQA question (a parquet file, being binary, is not read as text)."""
    with path.open("rb") as stream:
        if stream.read(len(PARQUET_MAGIC)) == PARQUET_MAGIC:
            return False
    return is_metaqa_line(first_line(path) or "")
