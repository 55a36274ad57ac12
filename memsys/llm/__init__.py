"""Model clients: the LLMClient protocol, real providers over HTTP and simulated models.

Importing this package registers the built-in providers (``openai``, ``openai-compatible``,
``anthropic`` and the simulated ``sim``) with :func:`make_client`.
"""

from memsys.llm._http import HTTPConfig, is_retryable
from memsys.llm._sim_provider import make_sim
from memsys.llm.anthropic import AnthropicClient
from memsys.llm.base import (
    ChatRequest,
    ChatResponse,
    LLMClient,
    LLMError,
    Message,
    ModelKind,
    Purpose,
    RemoteClient,
    Role,
    StopReason,
    ToolCall,
    Usage,
)
from memsys.llm.openai import OPENAI, OPENAI_COMPATIBLE, OpenAIChatClient, OpenAIFlavor
from memsys.llm.registry import (
    ProviderFactory,
    make_client,
    model_kind,
    register_provider,
    registered_providers,
    resolve_model,
)
from memsys.llm.session import SessionModel

__all__ = [
    "OPENAI",
    "OPENAI_COMPATIBLE",
    "AnthropicClient",
    "ChatRequest",
    "ChatResponse",
    "HTTPConfig",
    "LLMClient",
    "LLMError",
    "Message",
    "ModelKind",
    "OpenAIChatClient",
    "OpenAIFlavor",
    "ProviderFactory",
    "Purpose",
    "RemoteClient",
    "Role",
    "SessionModel",
    "StopReason",
    "ToolCall",
    "Usage",
    "is_retryable",
    "make_client",
    "make_sim",
    "model_kind",
    "register_provider",
    "registered_providers",
    "resolve_model",
]
