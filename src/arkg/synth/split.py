"""Which questions may become training data: the split, by question id.

    default   none of the questions arkg is evaluated on: no CoLoTa question, no sample-KG question
              (the README's demo questions, which the tuned model is tested on), no geography
              question of the `test` split; geography `train` and `dev` are kept
    train     geography `train` questions only
    all       every question (for counting what synthesis can do, not for training)
    ids:FILE  only the questions whose ids FILE lists (one per line; `#` starts a comment)

`--exclude FILE` drops the ids it lists whatever the rule. The rule, and the SHA-256 of each ids
file, go into the output's provenance.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from arkg.errors import ArkgError

RULES = ("default", "train", "all", "ids:FILE")
EVALUATION_SOURCES = frozenset({"colota", "sample"})
HELD_OUT_SPLIT = "test"


@dataclass(frozen=True)
class IdsFile:
    path: str
    sha256: str
    ids: frozenset[str]


@dataclass(frozen=True)
class SplitRule:
    name: str
    keep_only: IdsFile | None = None
    exclude: IdsFile | None = None

    def keeps(self, source: str, question_id: str, split: str = "") -> bool:
        """Whether the question (of that source, and of that split when the source has splits) is kept."""
        if self.exclude is not None and question_id in self.exclude.ids:
            return False
        if self.keep_only is not None:
            return question_id in self.keep_only.ids
        if self.name == "all":
            return True
        if self.name == "train":
            return split == "train"
        return source not in EVALUATION_SOURCES and split != HELD_OUT_SPLIT

    def describe(self) -> dict[str, object]:
        files = {
            role: {"path": ids.path, "sha256": ids.sha256, "ids": len(ids.ids)}
            for role, ids in (("keep_only", self.keep_only), ("exclude", self.exclude))
            if ids is not None
        }
        return {"rule": self.name, **files}


def parse_split(rule: str, exclude: str | Path | None = None) -> SplitRule:
    """The split named by `rule` (see the module doc), less the ids of the `exclude` file."""
    excluded = read_ids(exclude) if exclude is not None else None
    if rule.startswith("ids:"):
        return SplitRule("ids", keep_only=read_ids(rule[len("ids:") :]), exclude=excluded)
    if rule not in ("default", "train", "all"):
        raise ArkgError(f"unknown split {rule!r}; choose one of: {', '.join(RULES)}")
    return SplitRule(rule, exclude=excluded)


def read_ids(path: str | Path) -> IdsFile:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ArkgError(f"{path}: cannot read the ids file ({error.strerror or error})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ArkgError(f"{path}: not UTF-8 text (byte {error.start})") from None
    ids = frozenset(line.split("#", 1)[0].strip() for line in text.splitlines()) - {""}
    if not ids:
        raise ArkgError(f"{path}: lists no question id (one id per line)")
    return IdsFile(str(path), hashlib.sha256(data).hexdigest(), ids)
