"""The embedding service: the one kind of process that holds the embedding model."""
