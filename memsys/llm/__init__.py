"""Model clients: the LLMClient protocol, real providers over HTTP and simulated models."""

from memsys.llm.base import (
    ChatRequest,
    ChatResponse,
    LLMClient,
    LLMError,
    Message,
    ModelKind,
    Purpose,
    Role,
    StopReason,
    ToolCall,
    Usage,
)

__all__ = [
    "ChatRequest",
    "ChatResponse",
    "LLMClient",
    "LLMError",
    "Message",
    "ModelKind",
    "Purpose",
    "Role",
    "StopReason",
    "ToolCall",
    "Usage",
]
