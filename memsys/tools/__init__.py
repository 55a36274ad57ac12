"""The memory tools the assistant calls."""

from typing import TYPE_CHECKING

from memsys.tools.base import (
    DescribedTool,
    Tool,
    ToolAction,
    ToolDefinition,
    ToolErrorCode,
    ToolParameter,
    ToolResult,
    ToolSignature,
)
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

if TYPE_CHECKING:
    from memsys.tools.search_tool import SearchMemoryTool


def __getattr__(name: str) -> object:
    # search_memory pulls in the search engine (numpy, scipy: ~0.4 s); imported on first
    # use, so `memeval --help` and `memeval memory show` start fast (issue 29).
    if name == "SearchMemoryTool":
        from memsys.tools.search_tool import SearchMemoryTool

        return SearchMemoryTool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_VARIANT",
    "MAX_CONTENT_LENGTH",
    "DescribedTool",
    "ReadMemoryTool",
    "SaveMemoryTool",
    "SearchMemoryTool",
    "Tool",
    "ToolAction",
    "ToolDefinition",
    "ToolErrorCode",
    "ToolParameter",
    "ToolResult",
    "ToolSignature",
    "UpdateMemoryTool",
    "Variant",
    "available_variants",
    "load_variant",
]
