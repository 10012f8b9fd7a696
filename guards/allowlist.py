"""What layer 1 lets through: statement shapes, functions, operators and types.

Everything here is an allowlist; anything absent is rejected. Functions are checked by name
(optionally qualified with `pg_catalog`); the agent's database role additionally has EXECUTE
revoked on the dangerous ones (layer 3), so a gap here is not a hole there.
"""

from __future__ import annotations

AGGREGATES = {
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "string_agg",
    "array_agg",
    "bool_and",
    "bool_or",
    "every",
    "percentile_cont",
    "percentile_disc",
    "mode",
    "corr",
    "covar_pop",
    "covar_samp",
    "regr_slope",
    "regr_intercept",
    "regr_r2",
    "grouping",
}
WINDOW = {
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
}
MATH = {
    "abs",
    "round",
    "ceil",
    "ceiling",
    "floor",
    "trunc",
    "power",
    "pow",
    "sqrt",
    "cbrt",
    "exp",
    "ln",
    "log",
    "log10",
    "mod",
    "sign",
    "div",
    "width_bucket",
    "greatest",
    "least",
    "pi",
    "numeric",
    "scale",
}
STRING = {
    "lower",
    "upper",
    "initcap",
    "length",
    "char_length",
    "character_length",
    "octet_length",
    "substring",
    "substr",
    "trim",
    "btrim",
    "ltrim",
    "rtrim",
    "replace",
    "concat",
    "concat_ws",
    "left",
    "right",
    "lpad",
    "rpad",
    "position",
    "strpos",
    "split_part",
    "reverse",
    "repeat",
    "starts_with",
    "to_char",
    "to_number",
    "translate",
    "overlay",
    "unaccent",
    "format",
}
DATE_TIME = {
    "now",
    "clock_timestamp",
    "statement_timestamp",
    "transaction_timestamp",
    "timeofday",
    "date_add",
    "date_subtract",
    "overlaps",
    "date_trunc",
    "date_part",
    "extract",
    "age",
    "to_date",
    "to_timestamp",
    "make_date",
    "make_time",
    "make_timestamp",
    "make_timestamptz",
    "make_interval",
    "date_bin",
    "justify_days",
    "justify_hours",
    "justify_interval",
    "isfinite",
    "timezone",
    "current_date",
    "generate_series",
}
"""PostgreSQL 16's date/time functions (docs §9.9, Table 9.33) and formatting ones (§9.8,
`to_char` under STRING), checked against the docs' table in
tests/integration/guards/test_date_time_functions.py. `OVERLAPS` and `AT TIME ZONE` reach
the guard as the calls `overlaps()` and `timezone()`; `CURRENT_DATE`, `LOCALTIMESTAMP` and the
like as SQL value functions (below); `+ - * /` on dates, times and intervals are OPERATORS.
`clock_timestamp()` and `timeofday()` are volatile but only read the clock, like `now()`.
Left out on purpose: `pg_sleep`, `pg_sleep_for`, `pg_sleep_until` (§9.9.6, "Delaying
Execution"): they read nothing and hold a connection of the agent's pool while they wait."""
CONDITIONAL = {"coalesce", "nullif"}
ARRAYS = {
    "array_length",
    "array_lower",
    "array_upper",
    "cardinality",
    "array_position",
    "array_to_string",
    "string_to_array",
    "unnest",
}
"""`array_agg` is an aggregate above; `= ANY(...)`, `@>`, `a[1]` and `ARRAY[...]` are syntax."""
FULL_TEXT = {
    "to_tsvector",
    "to_tsquery",
    "plainto_tsquery",
    "phraseto_tsquery",
    "websearch_to_tsquery",
    "setweight",
    "ts_rank",
    "ts_rank_cd",
}
"""Matching and ranking. Left out on purpose: `ts_stat` and `ts_rewrite` run an SQL string
they are given (a query the guard never sees), and `ts_headline` re-parses every matched
document in full to build HTML-ish snippets with caller-chosen markup: search-page output,
not an answer's data, and the costliest call of the family when put in WHERE or ORDER BY."""

TYPE_FUNCTIONS = {
    "date",
    "timestamp",
    "timestamptz",
    "time",
    "timetz",
    "interval",
    "text",
    "int2",
    "int4",
    "int8",
    "float4",
    "float8",
    "bool",
}
"""Allowed types called as functions, as analysts write them (`DATE(updated_at)`,
`int8(x)`): PostgreSQL's conversion functions, the same as a cast to the type (`::date`),
which is allowed. `timestamp`, `time` and `interval` are keywords, so PostgreSQL reads them as
calls only quoted or qualified (`"timestamp"(d)`, `pg_catalog.time(ts)`). (`regclass(...)`,
`oid(...)` and other types outside `TYPES` stay refused.)"""

FUNCTIONS = (
    AGGREGATES | WINDOW | MATH | STRING | DATE_TIME | CONDITIONAL | ARRAYS | FULL_TEXT
) | TYPE_FUNCTIONS
"""Every function name a guarded query may call."""

SET_RETURNING_IN_FROM = {"generate_series", "unnest"}
"""The only functions allowed as a FROM item (a date spine, an array), one at a time."""

OPERATORS = {
    "=",
    "<>",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "||",
    "@",
    "~~",
    "!~~",
    "~~*",
    "!~~*",
    "~",
    "~*",
    "!~",
    "!~*",
    "@>",
    "<@",
    "&&",
    "@@",
    "BETWEEN",
    "NOT BETWEEN",
    "BETWEEN SYMMETRIC",
    "NOT BETWEEN SYMMETRIC",
}

TYPES = {
    "int2",
    "int4",
    "int8",
    "smallint",
    "integer",
    "int",
    "bigint",
    "numeric",
    "decimal",
    "float4",
    "float8",
    "real",
    "double precision",
    "text",
    "varchar",
    "bpchar",
    "char",
    "character",
    "character varying",
    "date",
    "time",
    "timetz",
    "timestamp",
    "timestamptz",
    "interval",
    "bool",
    "boolean",
    "tsvector",
    "tsquery",
}
"""Built-in types a value may be cast to; no `regclass`, `regproc`, `xml`, `json`, `oid`…
Casts to the schema's own enum and domain types come from the policy (`GuardPolicy.types`)."""

LITERAL_ONLY_TYPES = {"regconfig"}
"""Allowed only around a string literal: `'english'::regconfig` names a text search
configuration; any other expression could look up arbitrary catalog names."""

_BUILTIN_TYPE_NAMES = """
    aclitem any anyarray anycompatible anycompatiblearray anycompatiblemultirange
    anycompatiblenonarray anycompatiblerange anyelement anyenum anymultirange anynonarray
    anyrange bit bool box bpchar bytea char cid cidr circle cstring date datemultirange
    daterange event_trigger fdw_handler float4 float8 gtsvector index_am_handler inet int2
    int2vector int4 int4multirange int4range int8 int8multirange int8range internal interval
    json jsonb jsonpath language_handler line lseg macaddr macaddr8 money name numeric
    nummultirange numrange oid oidvector path pg_brin_bloom_summary
    pg_brin_minmax_multi_summary pg_ddl_command pg_dependencies pg_lsn pg_mcv_list
    pg_ndistinct pg_node_tree pg_snapshot point polygon record refcursor regclass
    regcollation regconfig regdictionary regnamespace regoper regoperator regproc
    regprocedure regrole regtype table_am_handler text tid time timestamp timestamptz timetz
    trigger tsm_handler tsmultirange tsquery tsrange tstzmultirange tstzrange tsvector
    txid_snapshot unknown uuid varbit varchar void xid xid8 xml
"""
BUILTIN_TYPES = frozenset(_BUILTIN_TYPE_NAMES.split())
"""PostgreSQL 16's own type names (pg_catalog, not counting array and row types, which
start with `_` and `pg_`). `pg_catalog` comes first on every search path, so a schema's
type with one of these names is reached only schema-qualified; written bare, it would be
the built-in one (`regclass`). A test keeps this list equal to the live server's."""

SQL_VALUE_FUNCTIONS = {
    "SVFOP_CURRENT_DATE",
    "SVFOP_CURRENT_TIME",
    "SVFOP_CURRENT_TIME_N",
    "SVFOP_CURRENT_TIMESTAMP",
    "SVFOP_CURRENT_TIMESTAMP_N",
    "SVFOP_LOCALTIME",
    "SVFOP_LOCALTIME_N",
    "SVFOP_LOCALTIMESTAMP",
    "SVFOP_LOCALTIMESTAMP_N",
}
"""CURRENT_DATE and friends; CURRENT_USER, SESSION_USER and the like are not data."""

SUBLINK_TYPES = {"EXISTS_SUBLINK", "ALL_SUBLINK", "ANY_SUBLINK", "EXPR_SUBLINK", "ARRAY_SUBLINK"}

SYSTEM_SCHEMAS = {"pg_catalog", "information_schema", "pg_toast"}
