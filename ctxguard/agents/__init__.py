"""Tools for agents that pull what a cut left out: the MCP server and its tools."""
