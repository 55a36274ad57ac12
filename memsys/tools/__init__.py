"""The memory tools the assistant calls."""

from memsys.tools.base import Tool, ToolDefinition, ToolErrorCode, ToolParameter, ToolResult
from memsys.tools.descriptions import (
    DEFAULT_VARIANT,
    Variant,
    available_variants,
    load_variant,
)
from memsys.tools.memory_tools import (
    MAX_CONTENT_LENGTH,
    ReadMemoryTool,
    SaveMemoryTool,
    UpdateMemoryTool,
)
from memsys.tools.search_tool import SearchMemoryTool

__all__ = [
    "DEFAULT_VARIANT",
    "MAX_CONTENT_LENGTH",
    "ReadMemoryTool",
    "SaveMemoryTool",
    "SearchMemoryTool",
    "Tool",
    "ToolDefinition",
    "ToolErrorCode",
    "ToolParameter",
    "ToolResult",
    "UpdateMemoryTool",
    "Variant",
    "available_variants",
    "load_variant",
]
