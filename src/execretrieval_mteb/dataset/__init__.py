"""The on-disk schema of a built ExecRetrieval dataset, shared by every stage."""
