"""The agent graph: state, topology and the stage runner shared by resolver and action workers."""
