"""What layer 1 lets through: statement shapes, functions, operators and types.

Everything here is an allowlist; anything absent is rejected. Functions are checked by name
(optionally qualified with `pg_catalog`); the agent's database role additionally has EXECUTE
revoked on the dangerous ones (layer 3), so a gap here is not a hole there.
"""

from __future__ import annotations

AGGREGATES = {
    "count", "sum", "avg", "min", "max", "stddev", "stddev_pop", "stddev_samp", "variance",
    "var_pop", "var_samp", "string_agg", "array_agg", "bool_and", "bool_or", "every",
    "percentile_cont", "percentile_disc", "mode", "corr", "covar_pop", "covar_samp",
    "regr_slope", "regr_intercept", "regr_r2", "grouping",
}  # fmt: skip
WINDOW = {
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
}  # fmt: skip
MATH = {
    "abs", "round", "ceil", "ceiling", "floor", "trunc", "power", "pow", "sqrt", "cbrt", "exp",
    "ln", "log", "log10", "mod", "sign", "div", "width_bucket", "greatest", "least", "pi",
    "numeric", "scale",
}  # fmt: skip
STRING = {
    "lower", "upper", "initcap", "length", "char_length", "character_length", "octet_length",
    "substring", "substr", "trim", "btrim", "ltrim", "rtrim", "replace", "concat", "concat_ws",
    "left", "right", "lpad", "rpad", "position", "strpos", "split_part", "reverse", "repeat",
    "starts_with", "to_char", "to_number", "translate", "overlay", "unaccent", "format",
}  # fmt: skip
DATE_TIME = {
    "now", "date_trunc", "date_part", "extract", "age", "to_date", "to_timestamp", "make_date",
    "make_time", "make_timestamp", "make_timestamptz", "make_interval", "date_bin",
    "justify_days", "justify_hours", "justify_interval", "isfinite", "timezone",
    "current_date", "generate_series",
}  # fmt: skip
CONDITIONAL_AND_ARRAYS = {"coalesce", "nullif", "array_length", "cardinality", "unnest"}

FUNCTIONS = AGGREGATES | WINDOW | MATH | STRING | DATE_TIME | CONDITIONAL_AND_ARRAYS
"""Every function name a guarded query may call."""

SET_RETURNING_IN_FROM = {"generate_series", "unnest"}
"""The only functions allowed as a FROM item (a date spine, an array), one at a time."""

OPERATORS = {
    "=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "^", "||", "@",
    "~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*",
    "BETWEEN", "NOT BETWEEN", "BETWEEN SYMMETRIC", "NOT BETWEEN SYMMETRIC",
}  # fmt: skip

TYPES = {
    "int2", "int4", "int8", "smallint", "integer", "int", "bigint", "numeric", "decimal",
    "float4", "float8", "real", "double precision", "text", "varchar", "bpchar", "char",
    "character", "character varying", "date", "time", "timetz", "timestamp", "timestamptz",
    "interval", "bool", "boolean",
}  # fmt: skip
"""Types a value may be cast to; no `regclass`, `regproc`, `xml`, `json`, `oid`…"""

SQL_VALUE_FUNCTIONS = {
    "SVFOP_CURRENT_DATE", "SVFOP_CURRENT_TIME", "SVFOP_CURRENT_TIME_N",
    "SVFOP_CURRENT_TIMESTAMP", "SVFOP_CURRENT_TIMESTAMP_N", "SVFOP_LOCALTIME",
    "SVFOP_LOCALTIME_N", "SVFOP_LOCALTIMESTAMP", "SVFOP_LOCALTIMESTAMP_N",
}  # fmt: skip
"""CURRENT_DATE and friends; CURRENT_USER, SESSION_USER and the like are not data."""

SUBLINK_TYPES = {"EXISTS_SUBLINK", "ALL_SUBLINK", "ANY_SUBLINK", "EXPR_SUBLINK", "ARRAY_SUBLINK"}

SYSTEM_SCHEMAS = {"pg_catalog", "information_schema", "pg_toast"}
