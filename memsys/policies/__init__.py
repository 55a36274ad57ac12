"""Write policies, registered by name: ``append``, ``guardrails``, ``unified``."""

from memsys.policies import file_policies, unified
from memsys.policies.base import (
    PolicyContext,
    WritePolicy,
    available_policies,
    make_policy,
    register_policy,
)

__all__ = [
    "PolicyContext",
    "WritePolicy",
    "available_policies",
    "file_policies",
    "make_policy",
    "register_policy",
    "unified",
]
