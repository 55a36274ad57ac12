"""Stage 3, what the model said: vcrpy cassettes recorded and replayed, their files
checked, their labels, and the audit of the committed cassettes.
"""

from __future__ import annotations

from evals.cassettes._cassette_file import (
    CASSETTE_LIMITS,
    CassetteFileProblem,
    interaction_problems,
    read_cassette,
)
from evals.cassettes._cassette_match import (
    VCRPY_INTERNALS,
    IndexedCassette,
    body_text,
    canonical_digest,
    check_vcrpy_internals,
    json_body,
    nearest_diff,
    request_key,
)
from evals.cassettes.cache import CachingCassette, ResponsePool
from evals.cassettes.cassette_audit import (
    CassetteInfo,
    CassetteProblem,
    check_cassette,
    describe,
    find_cassettes,
    recorded_cells,
)
from evals.cassettes.cassettes import (
    DEFAULT_ROOT,
    SECRET_HEADERS,
    SECRET_QUERY_PARAMETERS,
    SECRET_RESPONSE_HEADERS,
    CassetteLabel,
    CassetteMissError,
    CassetteMode,
    CassetteRecordError,
    CassetteSession,
    current_step,
    env_secrets,
    read_label,
    step,
    use_cassette,
    write_label,
)
from evals.cassettes.labels import ServerTimings

__all__ = [
    "CASSETTE_LIMITS",
    "DEFAULT_ROOT",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMETERS",
    "SECRET_RESPONSE_HEADERS",
    "VCRPY_INTERNALS",
    "CachingCassette",
    "CassetteFileProblem",
    "CassetteInfo",
    "CassetteLabel",
    "CassetteMissError",
    "CassetteMode",
    "CassetteProblem",
    "CassetteRecordError",
    "CassetteSession",
    "IndexedCassette",
    "ResponsePool",
    "ServerTimings",
    "body_text",
    "canonical_digest",
    "check_cassette",
    "check_vcrpy_internals",
    "current_step",
    "describe",
    "env_secrets",
    "find_cassettes",
    "interaction_problems",
    "json_body",
    "nearest_diff",
    "read_cassette",
    "read_label",
    "recorded_cells",
    "request_key",
    "step",
    "use_cassette",
    "write_label",
]
