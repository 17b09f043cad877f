"""What a user writes after `--db` to reach a Bolt server, read into a BoltSpec.

    bolt://[USER[:PASSWORD]@]HOST[:PORT][/DATABASE][?OPTION=VALUE&...]

Schemes: bolt, bolt+s, bolt+ssc (one server; +s: TLS, +ssc: TLS with a self-signed certificate) and
neo4j, neo4j+s, neo4j+ssc (a cluster: the driver asks the server for its routing table). The user and
password come from the URL, else from $ARKG_BOLT_USER and $ARKG_BOLT_PASSWORD; the password is never
part of what a spec shows (`display`, `redact_spec`, error messages).

Options (see docs/bolt.md): `label`, `name`, `relation`, `attributes` (how a property graph reads as
triples, see mapping.py), `fulltext` (auto, off, or the index to search), `timeout` (seconds per
query), `limit` (rows per lookup).
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass, field

from arkg.errors import SpecError
from arkg.graph.bolt.mapping import Mapping, check_identifier

SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
DEFAULT_PORT = 7687
USER_VARIABLE = "ARKG_BOLT_USER"
PASSWORD_VARIABLE = "ARKG_BOLT_PASSWORD"
DEFAULT_USER = "neo4j"  # the user a password alone logs in as (FalkorDB's is "falkordb")
DEFAULT_TIMEOUT = 30.0
DEFAULT_LIMIT = 10_000
# What `timeout` and `limit` may be: above the first, at most the second. A timeout past a day bounds
# nothing, and the driver turns it into milliseconds (1e308 s overflows there: an internal error).
# FalkorDB reads a LIMIT as 32 bits, 2**32 as 0: every lookup would be empty without a word; a
# signed 32-bit number is what every server takes.
MAX_TIMEOUT = 86_400
MAX_LIMIT = 2**31 - 1
RANGES = {"timeout": (0, MAX_TIMEOUT), "limit": (0, MAX_LIMIT)}
FULLTEXT_AUTO, FULLTEXT_OFF = "auto", "off"
_OPTIONS = ("label", "name", "relation", "attributes", "fulltext", "timeout", "limit")
_TRUE, _FALSE = ("true", "yes", "1", "on"), ("false", "no", "0", "off")


@dataclass(frozen=True)
class BoltSpec:
    """Where a Bolt server is, how to log in, and how to read its property graph as triples."""

    scheme: str
    host: str
    port: int = DEFAULT_PORT
    database: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    mapping: Mapping = field(default_factory=Mapping)
    fulltext: str = FULLTEXT_AUTO
    timeout: float = DEFAULT_TIMEOUT
    limit: int = DEFAULT_LIMIT

    @property
    def uri(self) -> str:
        """The address the driver connects to (no credentials, no database, no options)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def display(self) -> str:
        """The server and database, as messages name them: never the password."""
        return self.uri + (f"/{self.database}" if self.database else "")

    @property
    def auth(self) -> tuple[str, str] | None:
        if self.user is None and self.password is None:
            return None
        return (self.user or DEFAULT_USER, self.password or "")


def is_bolt_spec(spec: object) -> bool:
    """Whether a --db value names a Bolt server (bolt://, neo4j://, and their +s/+ssc forms)."""
    return isinstance(spec, str) and spec.partition("://")[0].lower() in SCHEMES and "://" in spec


def parse_bolt_spec(spec: str, environ: dict[str, str] | None = None) -> BoltSpec:
    """Read a Bolt URL; a SpecError says what is wrong with it (without repeating the password)."""
    environ = os.environ if environ is None else environ
    try:
        parts = urllib.parse.urlsplit(spec)
        port = parts.port or DEFAULT_PORT
    except ValueError as error:
        raise SpecError(f"{redact_spec(spec)}: not a Bolt URL ({error})") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES or not parts.hostname:
        raise SpecError(f"{redact_spec(spec)}: not a Bolt URL; write e.g. bolt://127.0.0.1:7687 ({', '.join(SCHEMES)})")
    if parts.fragment:
        raise SpecError(f"{redact_spec(spec)}: a Bolt URL has no #fragment")
    database = urllib.parse.unquote(parts.path.strip("/")) or None
    user = urllib.parse.unquote(parts.username) if parts.username else environ.get(USER_VARIABLE) or None
    password = urllib.parse.unquote(parts.password) if parts.password is not None else environ.get(PASSWORD_VARIABLE)
    options = _options(spec, parts.query)
    return BoltSpec(
        scheme=scheme,
        host=parts.hostname,
        port=port,
        database=database,
        user=user,
        password=password,
        mapping=_mapping(spec, options),
        fulltext=_fulltext(spec, options.get("fulltext", FULLTEXT_AUTO)),
        timeout=_number(spec, options, "timeout", float, DEFAULT_TIMEOUT),
        limit=_number(spec, options, "limit", int, DEFAULT_LIMIT),
    )


def redact_spec(spec: str) -> str:
    """A --db value fit to show: a Bolt URL loses its password (and any query string); others stay."""
    if not is_bolt_spec(spec):
        return spec
    scheme, _, rest = spec.partition("://")
    location = rest.split("/", 1)[0].split("?", 1)[0]
    userinfo, at, hostport = location.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user + '@' if at else ''}{hostport}"


def _options(spec: str, query: str) -> dict[str, str]:
    options: dict[str, str] = {}
    try:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise SpecError(f"{redact_spec(spec)}: cannot read the options after '?' (write NAME=VALUE&NAME=VALUE)") from None
    for key, value in pairs:
        if key not in _OPTIONS:
            raise SpecError(f"{redact_spec(spec)}: unknown option {key!r}; options: {', '.join(_OPTIONS)}")
        if key in options:
            raise SpecError(f"{redact_spec(spec)}: option {key!r} given twice")
        options[key] = value
    return options


def _mapping(spec: str, options: dict[str, str]) -> Mapping:
    try:
        attributes = options.get("attributes", "true").lower()
        if attributes not in _TRUE + _FALSE:
            raise ValueError(f"attributes must be true or false, not {options['attributes']!r}")
        names = [name.strip() for name in options["name"].split(",")] if "name" in options else None
        return Mapping(
            label=options.get("label") or None,
            **({"name_keys": tuple(names)} if names is not None else {}),
            relation_key=None if options.get("relation", "type") == "type" else options["relation"],
            attributes=attributes in _TRUE,
        )
    except ValueError as error:
        raise SpecError(f"{redact_spec(spec)}: {error}") from None


def _fulltext(spec: str, value: str) -> str:
    if value not in (FULLTEXT_AUTO, FULLTEXT_OFF):
        try:
            check_identifier(value, "the full-text index")
        except ValueError as error:
            raise SpecError(f"{redact_spec(spec)}: {error}") from None
    return value


def _number(spec: str, options: dict[str, str], key: str, kind: type, default: float) -> float:
    if key not in options:
        return default
    low, high = RANGES[key]
    try:
        value = kind(options[key])
    except ValueError:
        value = None
    # A comparison with nan is false: nan is refused too.
    if value is None or not low < value <= high:
        allowed = f"a whole number from {low + 1} to {high:,}" if kind is int else f"seconds above {low} and at most {high:,}"
        raise SpecError(f"{redact_spec(spec)}: {key} must be {allowed}, not {options[key]!r}")
    return value
