"""Write policies, registered by name: ``append``, ``guardrails``, ``unified``."""

from memsys.policies import file_policies, unified
from memsys.policies.base import (
    POLICIES,
    PolicyContext,
    WritePolicy,
    available_policies,
    make_policy,
    register_policy,
)

__all__ = [
    "POLICIES",
    "PolicyContext",
    "WritePolicy",
    "available_policies",
    "file_policies",
    "make_policy",
    "register_policy",
    "unified",
]
